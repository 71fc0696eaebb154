"""Alembic environment: always driven from bot.db.migrate with an open connection."""

from alembic import context

from bot.db.tables import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("Run migrations with `python -m bot migrate`, which supplies the connection")
dialect = connection.dialect.name


def _for_this_database(obj: object, *_: object) -> bool:
    """Schema items made for one database only (`info["dialect"]`) are compared on that one."""
    return getattr(obj, "info", {}).get("dialect") in (None, dialect)


context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=dialect == "sqlite",
    compare_type=True,
    include_object=_for_this_database,
)
with context.begin_transaction():
    context.run_migrations()

"""Alembic environment: always driven from bot.db.migrate with an open connection."""

import re
import warnings

from alembic import context
from sqlalchemy.exc import SAWarning

from bot.db.migrate import expression_indexes
from bot.db.tables import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("Run migrations with `python -m bot migrate`, which supplies the connection")
dialect = connection.dialect.name
EXPRESSION_INDEXES = expression_indexes(Base.metadata)


def _for_this_database(obj: object, name: str | None, type_: str, *_: object) -> bool:
    """Schema items made for one database only (`info["dialect"]`) are compared on that one;
    indexes on expressions on neither."""
    if type_ == "index" and name in EXPRESSION_INDEXES:
        return False
    return getattr(obj, "info", {}).get("dialect") in (None, dialect)


context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=dialect == "sqlite",
    compare_type=True,
    include_object=_for_this_database,
)
with context.begin_transaction(), warnings.catch_warnings():
    skipped = "|".join(map(re.escape, sorted(EXPRESSION_INDEXES)))
    warnings.filterwarnings(
        "ignore",
        f"Skipped unsupported reflection of expression-based index ({skipped})$",
        SAWarning,
    )
    warnings.filterwarnings(
        "ignore", f"autogenerate skipping metadata-specified expression-based index '({skipped})'"
    )
    context.run_migrations()

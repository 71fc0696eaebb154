"""Items' name folded (`name_key`), and two indexes: a channel's items of one kind by id (lists
sorted by a status, priority or severity read each value's items as a range of it, in the id
order that breaks their ties) and by folded name (lists sorted by name)

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07 21:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from bot.db.text import fold_text

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BY_ID = "ix_items_channel_id_kind_id"
_BY_NAME = "ix_items_channel_id_kind_name_key_id"
_BATCH = 5000


def upgrade() -> None:
    key = sa.String(length=255).with_variant(sa.String(length=255, collation="C"), "postgresql")
    op.add_column("items", sa.Column("name_key", key, nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # The fold the app's SQL applies (`bot.db.text.fold_case`), set-based.
        op.execute('UPDATE items SET name_key = lower(name COLLATE "und-x-icu")')
    else:
        # SQLite's lower() folds ASCII only: the app's own fold, in batches.
        items = sa.table("items", sa.column("id", sa.String), sa.column("name", sa.String))
        keyed = sa.table("items", sa.column("id", sa.String), sa.column("name_key", sa.String))
        rows = bind.execute(sa.select(items.c.id, items.c.name)).all()
        change = (
            sa.update(keyed)
            .where(keyed.c.id == sa.bindparam("item_id"))
            .values(name_key=sa.bindparam("key"))
        )
        for start in range(0, len(rows), _BATCH):
            batch = rows[start : start + _BATCH]
            bind.execute(change, [{"item_id": i, "key": fold_text(name)} for i, name in batch])
    op.create_index(_BY_ID, "items", ["channel_id", "kind", "id"])
    op.create_index(_BY_NAME, "items", ["channel_id", "kind", "name_key", "id"])


def downgrade() -> None:
    op.drop_index(_BY_NAME, table_name="items")
    op.drop_index(_BY_ID, table_name="items")
    op.drop_column("items", "name_key")

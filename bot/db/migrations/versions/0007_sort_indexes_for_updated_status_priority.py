"""Sort indexes for lists sorted by updatedAt, priority and (PostgreSQL) status, by folded name

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_UPDATED = "ix_items_channel_id_kind_updated_at_id"


def _folded_columns(dialect: str) -> tuple[str, ...]:
    # SQLite keeps one status index: a second cost status bulk edits 22 % of their CPU.
    return ("status", "priority") if dialect == "postgresql" else ("priority",)


def _folded(column: str, dialect: str) -> sa.TextClause:
    """The column as `bot.odata.text.fold_case` writes it in lists' ORDER BY, on this database
    (an index serves a sort only when its expression is the sort's own)."""
    if dialect == "postgresql":
        return sa.text(f'lower({column} COLLATE "und-x-icu") COLLATE "C"')
    return sa.text(f"odata_lower({column})")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.create_index(_UPDATED, "items", ["channel_id", "kind", "updated_at", "id"])
    for column in _folded_columns(dialect):
        op.create_index(
            f"ix_items_channel_id_kind_{column}_folded_id",
            "items",
            ["channel_id", "kind", _folded(column, dialect), "id"],
        )


def downgrade() -> None:
    for column in _folded_columns(op.get_bind().dialect.name):
        op.drop_index(f"ix_items_channel_id_kind_{column}_folded_id", table_name="items")
    op.drop_index(_UPDATED, table_name="items")

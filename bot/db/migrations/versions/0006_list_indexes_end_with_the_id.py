"""List indexes end with the id and sort nulls first, so every page of a list reads an index range

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PERSONAL = "ix_item_assignees_personal_order"
# Each index before and after; the new ones end with the id. Due dates may be null.
_ITEMS = (
    ("channel_id", "kind", "created_at"),
    ("channel_id", "kind", "due_date"),
    ("channel_id", "kind", "status", "due_date"),
)


def _name(columns: Sequence[str]) -> str:
    return "_".join(["ix_items", *columns])


def _with_id(columns: Sequence[str], *, nulls_first: bool) -> tuple[str, list[str | sa.TextClause]]:
    """The new index's name and columns: nulls first, as lists sort them, is SQLite's only
    order and said for PostgreSQL (in the name too, as the models name it)."""
    said = [f"{c}_nulls_first" if c == "due_date" and nulls_first else c for c in columns]
    elements: list[str | sa.TextClause] = [
        sa.text(f"{c} NULLS FIRST") if c == "due_date" and nulls_first else c for c in columns
    ]
    return _name([*said, "id"]), [*elements, "id"]


def upgrade() -> None:
    nulls_first = op.get_bind().dialect.name == "postgresql"
    for columns in _ITEMS:
        op.drop_index(_name(columns), table_name="items")
        name, elements = _with_id(columns, nulls_first=nulls_first)
        op.create_index(name, "items", elements)
    # Newest first with ties by item id the same way: the index read backwards.
    op.drop_index(_PERSONAL, table_name="item_assignees")
    op.create_index(
        _PERSONAL, "item_assignees", ["user_id", "kind", "created_at", "item_id", "channel_id"]
    )


def downgrade() -> None:
    op.drop_index(_PERSONAL, table_name="item_assignees")
    op.create_index(
        _PERSONAL,
        "item_assignees",
        ["user_id", "kind", sa.text("created_at DESC"), "item_id", "channel_id"],
    )
    nulls_first = op.get_bind().dialect.name == "postgresql"
    for columns in _ITEMS:
        op.drop_index(_with_id(columns, nulls_first=nulls_first)[0], table_name="items")
        op.create_index(_name(columns), "items", list(columns))

"""item_assignees: copies of the item's kind, channel and creation time, indexed for the
personal views

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COPIED = ("kind", "channel_id", "created_at")


def upgrade() -> None:
    with op.batch_alter_table("item_assignees", schema=None) as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=8), nullable=True))
        batch_op.add_column(sa.Column("channel_id", sa.String(length=24), nullable=True))
        batch_op.add_column(
            sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=True)
        )
    # Existing assignments take their item's values (the same statement on both databases).
    for column in _COPIED:
        op.execute(
            f"UPDATE item_assignees SET {column} = "
            f"(SELECT items.{column} FROM items WHERE items.id = item_assignees.item_id)"
        )
    with op.batch_alter_table("item_assignees", schema=None) as batch_op:
        for column in _COPIED:
            batch_op.alter_column(column, nullable=False)
        batch_op.drop_index(batch_op.f("ix_item_assignees_user_id"))
    # Outside the batch: SQLite's table copy cannot name a sorted column; CREATE INDEX can.
    op.create_index(
        "ix_item_assignees_personal_order",
        "item_assignees",
        ["user_id", "kind", sa.text("created_at DESC"), "item_id", "channel_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_item_assignees_personal_order", table_name="item_assignees")
    with op.batch_alter_table("item_assignees", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_item_assignees_user_id"), ["user_id"], unique=False)
        for column in reversed(_COPIED):
            batch_op.drop_column(column)

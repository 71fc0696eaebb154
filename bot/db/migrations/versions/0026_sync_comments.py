"""sync_comments (each synced comment's id at the source, or its text while it waits to go out,
and when it was first sent) and sync_records.comment_count (a pull reads an item's comments only
when their count moved)

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-07 17:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sync_records", sa.Column("comment_count", sa.Integer(), nullable=True))
    op.create_table(
        "sync_comments",
        sa.Column("message_id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("source_comment_id", sa.String(length=255), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("tried_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_sync_comments_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["discussion_messages.id"],
            name=op.f("fk_sync_comments_message_id_discussion_messages"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("message_id", name=op.f("pk_sync_comments")),
        sa.UniqueConstraint(
            "item_id", "source_comment_id", name=op.f("uq_sync_comments_item_id_source_comment_id")
        ),
    )


def downgrade() -> None:
    op.drop_table("sync_comments")
    op.execute("ALTER TABLE sync_records DROP COLUMN comment_count")

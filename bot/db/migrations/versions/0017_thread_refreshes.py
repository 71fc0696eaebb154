"""thread refreshes: what an item's thread is told next (its root card, one reply per burst)

Revision ID: 0017
Revises: 0013
Create Date: 2026-11-27 13:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0017"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "thread_refreshes",
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("conversation_id", sa.String(length=255), nullable=False),
        sa.Column("root_message_id", sa.String(length=64), nullable=False),
        sa.Column("card", sa.JSON(), nullable=True),
        sa.Column("deleted_at", _TIME, nullable=True),
        sa.Column("job_id", sa.String(length=24), nullable=True),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_thread_refreshes_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_thread_refreshes")),
    )
    op.create_index(op.f("ix_thread_refreshes_channel_id"), "thread_refreshes", ["channel_id"])
    op.create_table(
        "thread_lines",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("what", sa.String(length=8), nullable=False),
        sa.Column("actor_id", sa.String(length=24), nullable=True),
        sa.Column("changes", sa.JSON(), nullable=True),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("mentions", sa.JSON(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("told_at", _TIME, nullable=True),
        sa.Column("reply_id", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(
            ["actor_id"],
            ["users.id"],
            name=op.f("fk_thread_lines_actor_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_thread_lines")),
        sa.UniqueConstraint("item_id", "key", name=op.f("uq_thread_lines_item_id_key")),
    )
    op.create_index(
        op.f("ix_thread_lines_item_id_told_at_created_at"),
        "thread_lines",
        ["item_id", "told_at", "created_at"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_thread_lines_item_id_told_at_created_at"), table_name="thread_lines")
    op.drop_table("thread_lines")
    op.drop_index(op.f("ix_thread_refreshes_channel_id"), table_name="thread_refreshes")
    op.drop_table("thread_refreshes")

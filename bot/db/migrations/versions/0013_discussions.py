"""discussions: an item's thread in its channel, and the messages of its discussion

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27 12:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "item_threads",
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("conversation_id", sa.String(length=255), nullable=True),
        sa.Column("root_message_id", sa.String(length=64), nullable=True),
        sa.Column("started_by", sa.String(length=24), nullable=True),
        sa.Column("started_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_item_threads_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_item_threads_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["started_by"],
            ["users.id"],
            name=op.f("fk_item_threads_started_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_item_threads")),
        sa.UniqueConstraint("conversation_id", name=op.f("uq_item_threads_conversation_id")),
    )
    op.create_index(op.f("ix_item_threads_channel_id"), "item_threads", ["channel_id"])
    op.create_table(
        "discussion_messages",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("message_id", sa.String(length=64), nullable=False),
        sa.Column("reply_to_id", sa.String(length=64), nullable=True),
        sa.Column("author_kind", sa.String(length=12), nullable=False),
        sa.Column("author_id", sa.String(length=64), nullable=True),
        sa.Column("author_user_id", sa.String(length=24), nullable=True),
        sa.Column("author_name", sa.String(length=255), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("card", sa.JSON(), nullable=True),
        sa.Column("mentions", sa.JSON(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("modified_at", _TIME, nullable=False),
        sa.Column("edited_at", _TIME, nullable=True),
        sa.Column("deleted_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["author_user_id"],
            ["users.id"],
            name=op.f("fk_discussion_messages_author_user_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_discussion_messages_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_discussion_messages")),
        sa.UniqueConstraint(
            "item_id", "message_id", name=op.f("uq_discussion_messages_item_id_message_id")
        ),
    )
    op.create_index(
        op.f("ix_discussion_messages_item_id_created_at_id"),
        "discussion_messages",
        ["item_id", "created_at", "id"],
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_discussion_messages_item_id_created_at_id"), table_name="discussion_messages"
    )
    op.drop_table("discussion_messages")
    op.drop_index(op.f("ix_item_threads_channel_id"), table_name="item_threads")
    op.drop_table("item_threads")

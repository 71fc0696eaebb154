"""notifications: channel noise settings, personal chats, shared send budget, digests

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27 16:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    # Not batch_alter_table: SQLite would copy `channels`, and dropping the old copy cascades.
    op.add_column("channels", sa.Column("digest_window_seconds", sa.Integer(), nullable=True))
    op.add_column("channels", sa.Column("digest_threshold", sa.Integer(), nullable=True))
    op.add_column("channels", sa.Column("quiet_hours", sa.JSON(), nullable=True))
    op.add_column("channels", sa.Column("notify_failing_told_at", _TIME, nullable=True))
    op.create_table(
        "personal_chats",
        sa.Column("user_id", sa.String(length=24), nullable=False),
        sa.Column("conversation_id", sa.String(length=255), nullable=False),
        sa.Column("notify", sa.Boolean(), nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_personal_chats_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_personal_chats")),
    )
    op.create_table(
        "teams_sends",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("conversation_id", sa.String(length=255), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=True),
        sa.Column("sent_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_teams_sends")),
    )
    op.create_index(
        op.f("ix_teams_sends_conversation_id_sent_at"),
        "teams_sends",
        ["conversation_id", "sent_at"],
    )
    op.create_index(
        op.f("ix_teams_sends_tenant_id_sent_at"), "teams_sends", ["tenant_id", "sent_at"]
    )
    op.create_index(op.f("ix_teams_sends_sent_at"), "teams_sends", ["sent_at"])
    with op.batch_alter_table("thread_refreshes", schema=None) as batch_op:
        batch_op.alter_column("conversation_id", existing_type=sa.String(length=255), nullable=True)
        batch_op.alter_column("root_message_id", existing_type=sa.String(length=64), nullable=True)
    op.create_index(op.f("ix_thread_lines_told_at"), "thread_lines", ["told_at"])
    op.create_table(
        "channel_digests",
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("job_id", sa.String(length=24), nullable=True),
        sa.Column("due_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_channel_digests_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_channel_digests")),
    )
    op.create_table(
        "digest_entries",
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("event_ids", sa.JSON(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_digest_entries_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("channel_id", "item_id", name=op.f("pk_digest_entries")),
    )


def downgrade() -> None:
    op.drop_table("digest_entries")
    op.drop_table("channel_digests")
    op.drop_index(op.f("ix_thread_lines_told_at"), table_name="thread_lines")
    with op.batch_alter_table("thread_refreshes", schema=None) as batch_op:
        batch_op.alter_column("root_message_id", existing_type=sa.String(length=64), nullable=False)
        batch_op.alter_column(
            "conversation_id", existing_type=sa.String(length=255), nullable=False
        )
    op.drop_index(op.f("ix_teams_sends_sent_at"), table_name="teams_sends")
    op.drop_index(op.f("ix_teams_sends_tenant_id_sent_at"), table_name="teams_sends")
    op.drop_index(op.f("ix_teams_sends_conversation_id_sent_at"), table_name="teams_sends")
    op.drop_table("teams_sends")
    op.drop_table("personal_chats")
    op.execute("ALTER TABLE channels DROP COLUMN notify_failing_told_at")
    op.execute("ALTER TABLE channels DROP COLUMN quiet_hours")
    op.execute("ALTER TABLE channels DROP COLUMN digest_threshold")
    op.execute("ALTER TABLE channels DROP COLUMN digest_window_seconds")

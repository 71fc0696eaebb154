"""jobs, conversation references, deleted channels

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("run_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("finished_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
    )
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_jobs_state_run_at"), ["state", "run_at"], unique=False)

    op.create_table(
        "conversation_references",
        sa.Column("conversation_id", sa.String(length=255), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=True),
        sa.Column("service_url", sa.String(length=255), nullable=False),
        sa.Column("tenant_id", sa.String(length=64), nullable=True),
        sa.Column("reference", sa.JSON(), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_conversation_references_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("conversation_id", name=op.f("pk_conversation_references")),
    )
    with op.batch_alter_table("conversation_references", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_conversation_references_channel_id"), ["channel_id"], unique=False
        )

    with op.batch_alter_table("channels", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("deleted_at", bot.db.types.UTCDateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("channels", schema=None) as batch_op:
        batch_op.drop_column("deleted_at")

    with op.batch_alter_table("conversation_references", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conversation_references_channel_id"))

    op.drop_table("conversation_references")
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_jobs_state_run_at"))

    op.drop_table("jobs")

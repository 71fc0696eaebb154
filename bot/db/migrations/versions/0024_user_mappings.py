"""user_mappings: how each user is known at the external sources (the user's `mapping` array),
kept by the sync engine when it matches a source user and set by hand through the API

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07 17:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_mappings",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("user_id", sa.String(length=24), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("project_hostname", sa.String(length=255), nullable=False),
        sa.Column("source_user_id", sa.String(length=255), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column("username", sa.String(length=255), nullable=True),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("source", "project_hostname", "source_user_id"),
    )
    op.create_index(op.f("ix_user_mappings_user_id"), "user_mappings", ["user_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_user_mappings_user_id"), table_name="user_mappings")
    op.drop_table("user_mappings")

"""attachments: files uploaded to bugs and tasks (their bytes are in the file store)

Revision ID: 0011
Revises: 0009
Create Date: 2026-11-25 08:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0011"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "attachments",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("filename", sa.String(length=255), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("created_by", sa.String(length=24), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_attachments_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name=op.f("fk_attachments_created_by_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_attachments_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attachments")),
    )
    op.create_index(op.f("ix_attachments_channel_id"), "attachments", ["channel_id"])
    op.create_index(
        op.f("ix_attachments_item_id_created_at_id"),
        "attachments",
        ["item_id", "created_at", "id"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_attachments_item_id_created_at_id"), table_name="attachments")
    op.drop_index(op.f("ix_attachments_channel_id"), table_name="attachments")
    op.drop_table("attachments")

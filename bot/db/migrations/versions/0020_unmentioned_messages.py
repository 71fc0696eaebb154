"""teams: when a channel message that does not mention the app first arrived

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not batch_alter_table: SQLite would copy `teams`, and dropping the old copy cascades.
    op.add_column(
        "teams",
        sa.Column("unmentioned_message_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.execute("ALTER TABLE teams DROP COLUMN unmentioned_message_at")

"""project_syncs.states_read_at: when the source's state catalogue was last read, so the poll
reads it again at least daily

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07 17:45:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "project_syncs",
        sa.Column("states_read_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.execute("ALTER TABLE project_syncs DROP COLUMN states_read_at")

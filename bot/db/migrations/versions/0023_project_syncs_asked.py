"""project_syncs.asked: how many times a pull was asked for (hooks, "sync now"), so a poll that
was running when one came runs again at once instead of waiting out its interval

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-07 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "project_syncs", sa.Column("asked", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.execute("ALTER TABLE project_syncs DROP COLUMN asked")

"""due-date alerts name the sweep run that fired them

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 08:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN on both databases (no table copy on SQLite).
    op.add_column("due_alerts", sa.Column("run_id", sa.String(length=24), nullable=True))
    op.create_index(op.f("ix_due_alerts_run_id"), "due_alerts", ["run_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_due_alerts_run_id"), table_name="due_alerts")
    # Not batch_alter_table: SQLite would copy the table for it.
    op.execute("ALTER TABLE due_alerts DROP COLUMN run_id")

"""event_deliveries.waiting_for: what a pending delivery waits for (a digest, quiet hours, a
retry); digest_entries.posted_job: the digest job whose card Teams took with the line in it

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("event_deliveries", sa.Column("waiting_for", sa.Text(), nullable=True))
    op.add_column("digest_entries", sa.Column("posted_job", sa.String(length=24), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE digest_entries DROP COLUMN posted_job")
    op.execute("ALTER TABLE event_deliveries DROP COLUMN waiting_for")

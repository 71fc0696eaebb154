"""sync_records.sending: the fields of a write whose answer was lost, so that a pull reading them
back knows them for the app's own and not a change there

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-08 01:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sync_records", sa.Column("sending", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE sync_records DROP COLUMN sending")

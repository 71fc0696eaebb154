"""Lists sorted by updatedAt read an index

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 09:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_UPDATED = "ix_items_channel_id_kind_updated_at_id"


def upgrade() -> None:
    op.create_index(_UPDATED, "items", ["channel_id", "kind", "updated_at", "id"])


def downgrade() -> None:
    op.drop_index(_UPDATED, table_name="items")

"""A channel's items of one kind by id: lists sorted by a status, priority or severity read
each value's items as a range of it, in the id order that breaks their ties

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-07 21:10:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BY_ID = "ix_items_channel_id_kind_id"


def upgrade() -> None:
    op.create_index(_BY_ID, "items", ["channel_id", "kind", "id"])


def downgrade() -> None:
    op.drop_index(_BY_ID, table_name="items")

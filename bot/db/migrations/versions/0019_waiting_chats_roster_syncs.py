"""personal chats of people no roster has named yet; when a team's roster was synced on install

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-02 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "waiting_personal_chats",
        sa.Column("object_id", sa.String(length=64), nullable=False),
        sa.Column("conversation_id", sa.String(length=255), nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("object_id", name=op.f("pk_waiting_personal_chats")),
    )
    op.create_table(
        "roster_syncs",
        sa.Column("team_id", sa.String(length=255), nullable=False),
        sa.Column("synced_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("team_id", name=op.f("pk_roster_syncs")),
    )


def downgrade() -> None:
    op.drop_table("roster_syncs")
    op.drop_table("waiting_personal_chats")

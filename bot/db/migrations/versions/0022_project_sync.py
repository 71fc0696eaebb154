"""Two-way sync: project_syncs (a project's sync settings, state, cursor and counts),
sync_records (each synced item's source id, version, last-seen values and problem), sync_log

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07 06:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Not a batch: SQLite's batch mode rebuilds the table, which drops its triggers (0008).
    op.add_column(
        "projects",
        sa.Column("credential_names", sa.JSON(), server_default=sa.text("'[]'"), nullable=False),
    )
    # Projects sealed before names were kept show none until their credentials are saved again
    # (the migration cannot unseal them: SECRET_KEY is the app's).
    op.create_table(
        "project_syncs",
        sa.Column("project_id", sa.String(length=24), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("direction", sa.String(length=8), nullable=False),
        sa.Column("interval_seconds", sa.Integer(), nullable=False),
        sa.Column("item_types", sa.JSON(), nullable=False),
        sa.Column("query", sa.Text(), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("last_pull_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_push_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.JSON(), nullable=True),
        sa.Column("hook_secret", sa.Text(), nullable=True),
        sa.Column("hook_ids", sa.JSON(), nullable=False),
        sa.Column("cursor", sa.Text(), nullable=True),
        sa.Column("import_cursor", sa.Text(), nullable=True),
        sa.Column("imported", sa.Boolean(), nullable=False),
        sa.Column("polls", sa.Integer(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("told_paused", sa.Boolean(), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_project_syncs_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("project_id", name=op.f("pk_project_syncs")),
    )
    op.create_table(
        "sync_log",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("project_id", sa.String(length=24), nullable=False),
        sa.Column("at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=True),
        sa.Column("source_id", sa.String(length=255), nullable=True),
        sa.Column("message", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_sync_log_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sync_log")),
    )
    with op.batch_alter_table("sync_log", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sync_log_project_id_at_id"), ["project_id", "at", "id"], unique=False
        )

    op.create_table(
        "sync_records",
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("project_id", sa.String(length=24), nullable=False),
        sa.Column("source_item_id", sa.String(length=255), nullable=True),
        sa.Column("version", sa.String(length=255), nullable=True),
        sa.Column("seen", sa.JSON(), nullable=False),
        sa.Column("seen_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("dirty", sa.JSON(), nullable=False),
        sa.Column("code", sa.String(length=255), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("unmatched", sa.JSON(), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_sync_records_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_sync_records")),
        sa.UniqueConstraint(
            "project_id", "source_item_id", name=op.f("uq_sync_records_project_id_source_item_id")
        ),
    )


def downgrade() -> None:
    op.drop_table("sync_records")
    with op.batch_alter_table("sync_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sync_log_project_id_at_id"))

    op.drop_table("sync_log")
    op.drop_table("project_syncs")
    op.execute("ALTER TABLE projects DROP COLUMN credential_names")

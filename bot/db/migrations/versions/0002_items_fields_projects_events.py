"""items, fields, projects and pending events

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 00:42:20.829044
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "field_values",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("field", sa.String(length=16), nullable=False),
        sa.Column("type", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("name_key", sa.String(length=255), nullable=False),
        sa.Column("color", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=16), nullable=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("primary", sa.Boolean(), nullable=False),
        sa.Column("order", sa.Integer(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_field_values_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_field_values")),
        sa.UniqueConstraint(
            "channel_id",
            "field",
            "type",
            "name_key",
            name=op.f("uq_field_values_channel_id_field_type_name_key"),
        ),
    )
    with op.batch_alter_table("field_values", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_field_values_channel_id_field_type_order"),
            ["channel_id", "field", "type", "order"],
            unique=False,
        )

    op.create_table(
        "item_counters",
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("last_internal_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_item_counters_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("channel_id", "kind", name=op.f("pk_item_counters")),
    )
    op.create_table(
        "pending_events",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("trigger", sa.String(length=32), nullable=False),
        sa.Column("actor_id", sa.String(length=24), nullable=True),
        sa.Column("occurred_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("processed_at", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["actor_id"],
            ["users.id"],
            name=op.f("fk_pending_events_actor_id_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_pending_events_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pending_events")),
    )
    with op.batch_alter_table("pending_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_pending_events_item_id"), ["item_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_pending_events_processed_at_occurred_at"),
            ["processed_at", "occurred_at"],
            unique=False,
        )

    op.create_table(
        "projects",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("source_id", sa.String(length=255), nullable=False),
        sa.Column("display_name", sa.String(length=255), nullable=False),
        sa.Column("project_name", sa.String(length=255), nullable=False),
        sa.Column("hostname", sa.String(length=255), nullable=False),
        sa.Column("color", sa.String(length=16), nullable=False),
        sa.Column("enable", sa.Boolean(), nullable=False),
        sa.Column("enable_bug", sa.Boolean(), nullable=False),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_projects_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
    )
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_projects_channel_id"), ["channel_id"], unique=False)

    op.create_table(
        "items",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("internal_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("owner", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=255), nullable=False),
        sa.Column("status_id", sa.String(length=24), nullable=True),
        sa.Column("priority", sa.String(length=255), nullable=False),
        sa.Column("severity", sa.String(length=255), nullable=True),
        sa.Column("project_id", sa.String(length=24), nullable=False),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("source_id", sa.String(length=255), nullable=False),
        sa.Column("start_date", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("due_date", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("completed_date", bot.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("effort", sa.String(length=255), nullable=True),
        sa.Column("phase", sa.String(length=255), nullable=True),
        sa.Column("phase_name", sa.String(length=255), nullable=True),
        sa.Column("bucket", sa.JSON(), nullable=False),
        sa.Column("bucket_name", sa.String(length=255), nullable=True),
        sa.Column("entity_id", sa.String(length=255), nullable=True),
        sa.Column("sync_status", sa.String(length=64), nullable=True),
        sa.Column("sync_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(length=24), nullable=True),
        sa.Column("updated_by", sa.String(length=24), nullable=True),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_items_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name=op.f("fk_items_created_by_users"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name=op.f("fk_items_project_id_projects")
        ),
        sa.ForeignKeyConstraint(
            ["status_id"],
            ["field_values.id"],
            name=op.f("fk_items_status_id_field_values"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["updated_by"],
            ["users.id"],
            name=op.f("fk_items_updated_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_items")),
        sa.UniqueConstraint(
            "channel_id", "kind", "internal_id", name=op.f("uq_items_channel_id_kind_internal_id")
        ),
    )
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_items_channel_id_kind_created_at"),
            ["channel_id", "kind", "created_at"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_items_channel_id_kind_due_date"),
            ["channel_id", "kind", "due_date"],
            unique=False,
        )
        batch_op.create_index(
            batch_op.f("ix_items_channel_id_kind_status_due_date"),
            ["channel_id", "kind", "status", "due_date"],
            unique=False,
        )
        batch_op.create_index(batch_op.f("ix_items_project_id"), ["project_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_items_status_id"), ["status_id"], unique=False)

    op.create_table(
        "item_assignees",
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("user_id", sa.String(length=24), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["items.id"],
            name=op.f("fk_item_assignees_item_id_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_item_assignees_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("item_id", "user_id", name=op.f("pk_item_assignees")),
    )
    with op.batch_alter_table("item_assignees", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_item_assignees_user_id"), ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("item_assignees", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_item_assignees_user_id"))

    op.drop_table("item_assignees")
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_items_status_id"))
        batch_op.drop_index(batch_op.f("ix_items_project_id"))
        batch_op.drop_index(batch_op.f("ix_items_channel_id_kind_status_due_date"))
        batch_op.drop_index(batch_op.f("ix_items_channel_id_kind_due_date"))
        batch_op.drop_index(batch_op.f("ix_items_channel_id_kind_created_at"))

    op.drop_table("items")
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_projects_channel_id"))

    op.drop_table("projects")
    with op.batch_alter_table("pending_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_pending_events_processed_at_occurred_at"))
        batch_op.drop_index(batch_op.f("ix_pending_events_item_id"))

    op.drop_table("pending_events")
    op.drop_table("item_counters")
    with op.batch_alter_table("field_values", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_field_values_channel_id_field_type_order"))

    op.drop_table("field_values")

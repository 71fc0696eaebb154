"""project catalogues, credentials and field mappings

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 03:10:34.848528
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "field_mappings",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("project_id", sa.String(length=24), nullable=False),
        sa.Column("field_id", sa.String(length=24), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("entity_type", sa.String(length=8), nullable=False),
        sa.Column("source_value_id", sa.String(length=255), nullable=False),
        sa.Column("source_value_name", sa.String(length=255), nullable=False),
        sa.Column("enable", sa.Boolean(), nullable=False),
        sa.Column("created_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", bot.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_field_mappings_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["field_id"],
            ["field_values.id"],
            name=op.f("fk_field_mappings_field_id_field_values"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["project_id"],
            ["projects.id"],
            name=op.f("fk_field_mappings_project_id_projects"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_field_mappings")),
        sa.UniqueConstraint(
            "project_id",
            "type",
            "entity_type",
            "source_value_id",
            name=op.f("uq_field_mappings_project_id_type_entity_type_source_value_id"),
        ),
    )
    with op.batch_alter_table("field_mappings", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_field_mappings_channel_id"), ["channel_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_field_mappings_field_id"), ["field_id"], unique=False)

    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("states", sa.JSON(), server_default=sa.text("'[]'"), nullable=False)
        )
        batch_op.add_column(sa.Column("credentials", sa.Text(), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_projects_channel_id_source_source_id"),
            ["channel_id", "source", "source_id"],
        )


def downgrade() -> None:
    with op.batch_alter_table("projects", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("uq_projects_channel_id_source_source_id"), type_="unique"
        )
        batch_op.drop_column("credentials")
        batch_op.drop_column("states")

    with op.batch_alter_table("field_mappings", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_field_mappings_field_id"))
        batch_op.drop_index(batch_op.f("ix_field_mappings_channel_id"))

    op.drop_table("field_mappings")

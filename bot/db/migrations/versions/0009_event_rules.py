"""event definitions, deliveries and their attempts, due-date alerts, a channel's due-soon window;
PostgreSQL notifies the workers of new work

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 10:00:00.000000

On PostgreSQL a statement that inserts pending events or jobs notifies `tracker_work` at its
commit (`bot.db.signals`), so every process's worker wakes at once, whoever wrote the rows.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import bot.db.types

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = bot.db.types.UTCDateTime(timezone=True)
_NOTIFIED = ("pending_events", "jobs")


def upgrade() -> None:
    op.create_table(
        "event_definitions",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("trigger", sa.String(length=32), nullable=False),
        sa.Column("conditions_op", sa.String(length=3), nullable=False),
        sa.Column("conditions", sa.JSON(), nullable=False),
        sa.Column("action_type", sa.String(length=16), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("secret", sa.String(length=64), nullable=False),
        sa.Column("previous_secret", sa.String(length=64), nullable=True),
        sa.Column("previous_secret_until", _TIME, nullable=True),
        sa.Column("disabled_reason", sa.Text(), nullable=True),
        sa.Column("disabled_announced_at", _TIME, nullable=True),
        sa.Column("created_by", sa.String(length=24), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_event_definitions_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name=op.f("fk_event_definitions_created_by_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_definitions")),
    )
    op.create_index(
        op.f("ix_event_definitions_channel_id_kind_trigger"),
        "event_definitions",
        ["channel_id", "kind", "trigger"],
    )
    op.create_table(
        "event_deliveries",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("definition_id", sa.String(length=24), nullable=False),
        sa.Column("channel_id", sa.String(length=24), nullable=False),
        sa.Column("event_id", sa.String(length=24), nullable=False),
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("trigger", sa.String(length=32), nullable=False),
        sa.Column("webhook_id", sa.String(length=64), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("last_attempt_at", _TIME, nullable=True),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["channel_id"],
            ["channels.id"],
            name=op.f("fk_event_deliveries_channel_id_channels"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["definition_id"],
            ["event_definitions.id"],
            name=op.f("fk_event_deliveries_definition_id_event_definitions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_deliveries")),
        sa.UniqueConstraint(
            "event_id", "definition_id", name=op.f("uq_event_deliveries_event_id_definition_id")
        ),
    )
    op.create_index(
        op.f("ix_event_deliveries_definition_id_created_at"),
        "event_deliveries",
        ["definition_id", "created_at"],
    )
    op.create_table(
        "event_delivery_attempts",
        sa.Column("id", sa.String(length=24), nullable=False),
        sa.Column("delivery_id", sa.String(length=24), nullable=False),
        sa.Column("at", _TIME, nullable=False),
        sa.Column("outcome", sa.String(length=12), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=True),
        sa.Column("response_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["event_deliveries.id"],
            name=op.f("fk_event_delivery_attempts_delivery_id_event_deliveries"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_event_delivery_attempts")),
    )
    op.create_index(
        op.f("ix_event_delivery_attempts_delivery_id"), "event_delivery_attempts", ["delivery_id"]
    )
    op.create_index(op.f("ix_event_delivery_attempts_at"), "event_delivery_attempts", ["at"])
    op.create_table(
        "due_alerts",
        sa.Column("item_id", sa.String(length=24), nullable=False),
        sa.Column("trigger", sa.String(length=8), nullable=False),
        sa.Column("due_date", _TIME, nullable=False),
        sa.Column("fired_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"], ["items.id"], name=op.f("fk_due_alerts_item_id_items"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("item_id", "trigger", name=op.f("pk_due_alerts")),
    )
    # A plain ADD COLUMN on both databases (SQLite copies no table for it, so no trigger is lost).
    op.add_column("channels", sa.Column("due_soon_minutes", sa.Integer(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION tracker_work_notify() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN PERFORM pg_notify('tracker_work', ''); RETURN NULL; END $$"
        )
        for table in _NOTIFIED:
            op.execute(
                f"CREATE TRIGGER {table}_notify_work AFTER INSERT ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION tracker_work_notify()"
            )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in _NOTIFIED:
            op.execute(f"DROP TRIGGER {table}_notify_work ON {table}")
        op.execute("DROP FUNCTION tracker_work_notify()")
    # Not batch_alter_table: SQLite would copy `channels`, and dropping the old copy cascades.
    op.execute("ALTER TABLE channels DROP COLUMN due_soon_minutes")
    op.drop_table("due_alerts")
    op.drop_index(op.f("ix_event_delivery_attempts_at"), table_name="event_delivery_attempts")
    op.drop_index(
        op.f("ix_event_delivery_attempts_delivery_id"), table_name="event_delivery_attempts"
    )
    op.drop_table("event_delivery_attempts")
    op.drop_index(
        op.f("ix_event_deliveries_definition_id_created_at"), table_name="event_deliveries"
    )
    op.drop_table("event_deliveries")
    op.drop_index(
        op.f("ix_event_definitions_channel_id_kind_trigger"), table_name="event_definitions"
    )
    op.drop_table("event_definitions")

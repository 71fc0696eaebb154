"""Event rules and what they sent: definitions, deliveries, attempts, due-date alerts."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class EventDefinition(Base):
    """A channel's rule: a trigger on one kind of item, conditions, and an action."""

    __tablename__ = "event_definitions"
    # The engine looks up the enabled rules of one channel, kind and trigger per event.
    __table_args__ = (Index(None, "channel_id", "kind", "trigger"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # task | bug
    name: Mapped[str] = mapped_column(String(255))  # the API's eventName
    enabled: Mapped[bool] = mapped_column(Boolean)
    trigger: Mapped[str] = mapped_column(String(32))  # ITEM_CREATED … OVERDUE
    conditions_op: Mapped[str] = mapped_column(String(3))  # and | or, between groups
    # [{"ops": "and"|"or", "conditions": [{"field", "ops", "value"}]}], as the API writes them.
    conditions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    action_type: Mapped[str] = mapped_column(String(16))  # HTTP | Notification
    action: Mapped[dict[str, Any]] = mapped_column(JSON)  # HTTP: url, method, headers, body
    secret: Mapped[str] = mapped_column(String(64))  # whsec_…: signs HTTP deliveries
    # After a rotation the old secret signs too, until this time (receivers switch over).
    previous_secret: Mapped[str | None] = mapped_column(String(64))
    previous_secret_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Why the service switched it off (a 410, repeated failures); None when a person did.
    disabled_reason: Mapped[str | None] = mapped_column(Text)
    # Set once the channel has been told it was switched off (announced once).
    disabled_announced_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class EventDelivery(Base):
    """One event sent by one definition's action: made once, retried until it succeeds or ends."""

    __tablename__ = "event_deliveries"
    # Processing an event twice (a process died after sending) cannot make a second delivery.
    __table_args__ = (
        UniqueConstraint("event_id", "definition_id"),
        Index(None, "definition_id", "created_at"),
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    definition_id: Mapped[str] = mapped_column(
        ForeignKey("event_definitions.id", ondelete="CASCADE")
    )
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(ID)  # no FK: pending events are pruned
    item_id: Mapped[str] = mapped_column(ID)  # no FK: a deleted item's deliveries stay listed
    trigger: Mapped[str] = mapped_column(String(32))
    webhook_id: Mapped[str] = mapped_column(String(64))  # stable across retries and resends
    # What is sent, fixed when the delivery is made so every retry sends the same request.
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(12))  # pending | succeeded | failed
    attempts: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # What a pending delivery waits for (the channel's digest, its quiet hours, a retry).
    waiting_for: Mapped[str | None] = mapped_column(Text)


class DeliveryAttempt(Base):
    """One try of a delivery: what came back, how long it took, why it failed."""

    __tablename__ = "event_delivery_attempts"
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    delivery_id: Mapped[str] = mapped_column(
        ForeignKey("event_deliveries.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)  # kept 30 days
    outcome: Mapped[str] = mapped_column(String(12))  # succeeded | retrying | failed
    latency_ms: Mapped[int | None]
    response_code: Mapped[int | None]
    error: Mapped[str | None] = mapped_column(Text)


class DueAlert(Base):
    """A DUESOON or OVERDUE that fired for an item's due date: it fires again only for a new one."""

    __tablename__ = "due_alerts"
    item_id: Mapped[str] = mapped_column(
        ForeignKey("items.id", ondelete="CASCADE"), primary_key=True
    )
    trigger: Mapped[str] = mapped_column(String(8), primary_key=True)  # DUESOON | OVERDUE
    due_date: Mapped[datetime] = mapped_column(UTCDateTime)
    fired_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The sweep run that fired it: the run writes its events from its own alerts.
    run_id: Mapped[str | None] = mapped_column(ID, index=True)

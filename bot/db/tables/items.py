"""Bugs and tasks, their assignees, their per-channel numbers, and the events they raise."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class Item(Base):
    """A bug or a task in a channel."""

    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("channel_id", "kind", "internal_id"),
        # Lists are per channel and kind, usually filtered by status and sorted by due date.
        Index(None, "channel_id", "kind", "status", "due_date"),
        Index(None, "channel_id", "kind", "due_date"),
        # The default order, newest first: an index ending with the sort key keeps a page read
        # short even under PostgreSQL's generic plan for a bound LIMIT.
        Index(None, "channel_id", "kind", "created_at"),
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # bug | task
    internal_id: Mapped[int]
    name: Mapped[str] = mapped_column(String(255))
    body: Mapped[str | None] = mapped_column(Text)
    owner: Mapped[str | None] = mapped_column(String(255))
    # The status's name, or "Invalid" once the status is gone or unmapped (then status_id is null).
    status: Mapped[str] = mapped_column(String(255))
    status_id: Mapped[str | None] = mapped_column(
        ForeignKey("field_values.id", ondelete="SET NULL"), index=True
    )
    priority: Mapped[str] = mapped_column(String(255))
    severity: Mapped[str | None] = mapped_column(String(255))  # bugs only
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id"), index=True)
    source: Mapped[str] = mapped_column(String(32))
    source_id: Mapped[str] = mapped_column(String(255))
    start_date: Mapped[datetime | None] = mapped_column(UTCDateTime)
    due_date: Mapped[datetime | None] = mapped_column(UTCDateTime)
    completed_date: Mapped[datetime | None] = mapped_column(UTCDateTime)
    effort: Mapped[str | None] = mapped_column(String(255))
    phase: Mapped[str | None] = mapped_column(String(255))
    phase_name: Mapped[str | None] = mapped_column(String(255))
    bucket: Mapped[list[Any]] = mapped_column(JSON)
    bucket_name: Mapped[str | None] = mapped_column(String(255))
    entity_id: Mapped[str | None] = mapped_column(String(255))
    sync_status: Mapped[str | None] = mapped_column(String(64))
    sync_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    updated_by: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ItemAssignee(Base):
    """An item's assignee. The item's kind, channel and creation time are copied here (fixed at
    creation, written only by `bot.items.assignees`): the personal views read a user's newest
    items as one index range, checking each entry's channel, instead of sorting every item of
    theirs."""

    __tablename__ = "item_assignees"
    item_id: Mapped[str] = mapped_column(
        ForeignKey("items.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[str] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int]
    # Copies of the item's columns; the item's own foreign key removes these rows with it.
    kind: Mapped[str] = mapped_column(String(8))
    channel_id: Mapped[str] = mapped_column(ID)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


# A user's items of one kind, newest first (the default order, ties by item id), with the channel
# to check: the page is the first entries whose channel the user may read, the count an index scan.
Index(
    "ix_item_assignees_personal_order",
    ItemAssignee.user_id,
    ItemAssignee.kind,
    ItemAssignee.created_at.desc(),
    ItemAssignee.item_id,
    ItemAssignee.channel_id,
)


class ItemCounter(Base):
    """Per channel and kind: the last internalId given (never reused), and a version that every
    change to those items bumps in its own transaction, so cached counts can never be stale."""

    __tablename__ = "item_counters"
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    last_internal_id: Mapped[int]
    version: Mapped[int]


class PendingEvent(Base):
    """An item change, written in the change's own transaction; the events engine consumes it."""

    __tablename__ = "pending_events"
    __table_args__ = (Index(None, "processed_at", "occurred_at"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))
    item_id: Mapped[str] = mapped_column(ID, index=True)  # no FK: deleted items keep their events
    trigger: Mapped[str] = mapped_column(String(32))  # ITEM_CREATED | ITEM_UPDATED | ITEM_DELETED
    actor_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    occurred_at: Mapped[datetime] = mapped_column(UTCDateTime)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

"""Bugs and tasks, their assignees, their per-channel numbers, and the events they raise."""

from datetime import datetime
from typing import Any, cast

from sqlalchemy import JSON, Column, ForeignKey, Index, String, Table, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime

NAME_KEY = String(255).with_variant(String(255, collation="C"), "postgresql")


class Item(Base):
    """A bug or a task in a channel."""

    __tablename__ = "items"
    __table_args__ = (UniqueConstraint("channel_id", "kind", "internal_id"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(ForeignKey("channels.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8))  # bug | task
    internal_id: Mapped[int]
    name: Mapped[str] = mapped_column(String(255))
    # The name folded (`bot.db.text.fold_text`), written with it: lists sorted by name read
    # their index. Compared by code point, as the folded name sorts (PostgreSQL's "C").
    name_key: Mapped[str | None] = mapped_column(NAME_KEY)
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


def _index_with_nulls_first(*columns: Column[Any]) -> None:
    """An index on `columns` whose nulls sort before every value, as lists sort them: SQLite's
    only order (its indexes cannot say NULLS FIRST), declared for PostgreSQL. Each database gets
    its own, named for what it holds (Alembic pairs indexes by name); `info["dialect"]` keeps the
    other out of that database's drift check."""
    words = [column.name for column in columns]
    said = [f"{c.name}_nulls_first" if c.nullable else c.name for c in columns]
    Index(_index_name(words), *columns, info={"dialect": "sqlite"}).ddl_if(dialect="sqlite")
    declared = [column.nulls_first() if column.nullable else column for column in columns]
    postgresql = Index(_index_name(said), *declared, info={"dialect": "postgresql"})
    postgresql.ddl_if(dialect="postgresql")


def _index_name(words: list[str]) -> str:
    return "_".join(["ix", Item.__tablename__, *words])


# Lists are per channel and kind, newest first by default, often filtered by status and sorted by
# due date. Each index ends with the id, which breaks ties the sort key's way, so a page of these
# orders, either way, is one range of an index read forwards or backwards: no sort, and a last
# page by next link costs what the first does.
_ITEM = cast(Table, Item.__table__).c
Index(None, _ITEM.channel_id, _ITEM.kind, _ITEM.created_at, _ITEM.id)
Index(None, _ITEM.channel_id, _ITEM.kind, _ITEM.updated_at, _ITEM.id)
_index_with_nulls_first(_ITEM.channel_id, _ITEM.kind, _ITEM.due_date, _ITEM.id)
_index_with_nulls_first(_ITEM.channel_id, _ITEM.kind, _ITEM.status, _ITEM.due_date, _ITEM.id)
# Lists sorted by status, priority or severity read each value's items in id order, the order
# that breaks their ties (`bot.items.value_sorts`): no field a bulk edit sets is in it.
Index(None, _ITEM.channel_id, _ITEM.kind, _ITEM.id)
# Lists sorted by name: bulk edits never set it, so they leave this index alone.
Index(None, _ITEM.channel_id, _ITEM.kind, _ITEM.name_key, _ITEM.id)
# Numbers sort by the unique constraint's index. No index for status or priority (sorted by
# folded name) nor the rarer sorts: one more index costs each bulk edit that moves its rows'
# entries (on PostgreSQL every edit, never HOT since updated_at is indexed) more than edits may
# lose for lists (figures in docs/BENCHMARKS.md, issue 14).


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


# A user's items of one kind, read backwards for newest first (the default order, ties by item id
# the same way), with the channel to check: the page is the first entries whose channel the user
# may read, the count an index scan.
Index(
    "ix_item_assignees_personal_order",
    ItemAssignee.user_id,
    ItemAssignee.kind,
    ItemAssignee.created_at,
    ItemAssignee.item_id,
    ItemAssignee.channel_id,
)


class ItemCounter(Base):
    """Per channel and kind: the last internalId given (never reused), and a version that the
    database's triggers move with every write lists read (`bot.items.versions`)."""

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

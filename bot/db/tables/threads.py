"""What an item's thread will be told next: the open refresh of its root card, and the lines its
next reply gathers (bot.discussions.coalescer)."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class ThreadRefresh(Base):
    """An item whose thread has something to be told: one row, one job, however many changes."""

    __tablename__ = "thread_refreshes"
    # No foreign key to items: a deleted item's thread is still told so.
    item_id: Mapped[str] = mapped_column(ID, primary_key=True)
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), index=True
    )
    kind: Mapped[str] = mapped_column(String(8))  # task | bug
    # The thread, copied from item_threads: it goes with the item when the item is deleted.
    # None: the item has no thread yet, and this refresh's notification starts it.
    conversation_id: Mapped[str | None] = mapped_column(String(255))
    root_message_id: Mapped[str | None] = mapped_column(String(64))
    # The root's last card, kept when the item is deleted (to show it marked deleted).
    card: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    job_id: Mapped[str | None] = mapped_column(ID)  # the refresh job that will send it


class ThreadLine(Base):
    """One change (or one line another feature asked for) to be told in the item's next reply."""

    __tablename__ = "thread_lines"
    # One line per change, whatever asks for it (`key`: the change's pending-event id).
    __table_args__ = (
        UniqueConstraint("item_id", "key"),
        Index(None, "item_id", "told_at", "created_at"),
        Index(None, "told_at"),  # what a channel was told lately (its digest's threshold)
    )
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    item_id: Mapped[str] = mapped_column(ID)  # no foreign key, as above
    key: Mapped[str] = mapped_column(String(64))
    what: Mapped[str] = mapped_column(String(8))  # change | deleted | line
    actor_id: Mapped[str | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    changes: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)  # [{field, old, new}]
    text: Mapped[str | None] = mapped_column(Text)  # a line as given (plain text)
    mentions: Mapped[list[dict[str, Any]]] = mapped_column(JSON)  # [{id, name}]
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Set when a reply that covered it was recorded (or the burst said nothing): never again.
    told_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    reply_id: Mapped[str | None] = mapped_column(String(64))  # Teams' id of that reply


class ChannelDigest(Base):
    """A channel's open digest: the notifications it holds, posted as one card at `due_at`."""

    __tablename__ = "channel_digests"
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True
    )
    job_id: Mapped[str | None] = mapped_column(ID)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime)


class DigestEntry(Base):
    """An item the channel's next digest lists, with what happened to it."""

    __tablename__ = "digest_entries"
    channel_id: Mapped[str] = mapped_column(
        ForeignKey("channels.id", ondelete="CASCADE"), primary_key=True
    )
    item_id: Mapped[str] = mapped_column(ID, primary_key=True)  # no foreign key, as above
    kind: Mapped[str] = mapped_column(String(8))
    summary: Mapped[str] = mapped_column(Text)  # plain text: "Ada moved it to Done"
    # The changes it tells (pending-event ids): their notification deliveries end with it.
    event_ids: Mapped[list[str]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The digest job whose card Teams took with this line in it, until that job records it.
    posted_job: Mapped[str | None] = mapped_column(ID)

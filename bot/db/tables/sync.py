"""Two-way sync with an external source: a project's settings and state, each synced item's
record, and the project's sync log (docs/sync.md)."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class ProjectSync(Base):
    """One external project's sync: what the channel chose, where it stands, and where the
    next pull starts. Absent until sync is first configured."""

    __tablename__ = "project_syncs"
    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True
    )
    enabled: Mapped[bool] = mapped_column(Boolean)
    direction: Mapped[str] = mapped_column(String(8))  # both | in | out
    interval_seconds: Mapped[int] = mapped_column(Integer)
    item_types: Mapped[dict[str, str]] = mapped_column(JSON)  # {"Bug": "Bug", "Task": "Task"}
    query: Mapped[str | None] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))  # off | importing | running | paused | failing
    last_pull_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_push_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # {code, message, at}
    # The hook secret, sealed like credentials (Jira's HMAC needs the secret itself).
    hook_secret: Mapped[str | None] = mapped_column(Text)
    hook_ids: Mapped[list[str]] = mapped_column(JSON)  # the source's subscriptions, to remove
    # The pull cursor (the source's own, opaque); null until the first import has finished.
    cursor: Mapped[str | None] = mapped_column(Text)
    # An import cut short resumes from the cursor of the last page it stored.
    import_cursor: Mapped[str | None] = mapped_column(Text)
    imported: Mapped[bool] = mapped_column(Boolean)
    polls: Mapped[int] = mapped_column(Integer)  # deletions are looked for every second poll
    # Pulls asked for (hooks, "sync now"): a poll that sees it change while it ran runs again.
    asked: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    counts: Mapped[dict[str, int]] = mapped_column(
        JSON
    )  # imported, pushed, pulled, conflicts, errors
    told_paused: Mapped[bool] = mapped_column(Boolean)  # the channel is told once
    # When the source's states were last read (saving, refresh, or the poll: at least daily).
    states_read_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class SyncRecord(Base):
    """A synced item: its id at the source, the source's version and the field values last seen
    there (what a per-field conflict compares), and its sync problem."""

    __tablename__ = "sync_records"
    __table_args__ = (UniqueConstraint("project_id", "source_item_id"),)
    item_id: Mapped[str] = mapped_column(ID, primary_key=True)  # no FK: outlives a delete here
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    source_item_id: Mapped[str | None] = mapped_column(String(255))  # null until created there
    version: Mapped[str | None] = mapped_column(String(255))
    seen: Mapped[dict[str, Any]] = mapped_column(JSON)  # field → value last seen at the source
    seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime)  # its change time there
    # Fields changed here since the last sync, and when (a conflict's "here" side).
    dirty: Mapped[dict[str, str]] = mapped_column(JSON)
    code: Mapped[str | None] = mapped_column(String(255))  # the source's, on Svc_SOURCE_ERROR
    message: Mapped[str | None] = mapped_column(Text)
    unmatched: Mapped[list[str]] = mapped_column(JSON)  # source users no member matched
    deleted: Mapped[bool] = mapped_column(Boolean)  # deleted here; the source's copy goes next
    # How many comments it had there when they were last read, or Jira's mark of them (a pull
    # reads them again only when it moved); null: never read, or the source keeps no count.
    comment_count: Mapped[int | None] = mapped_column(Integer)
    # The fields, as `seen` keeps them, of a write whose answer was lost (5xx, timeout): made
    # there or not, no one can tell; a pull that reads them back knows them for ours.
    sending: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class SyncComment(Base):
    """A comment of a synced item that travels: one that came from the source, or one made here
    (its text as the source takes it), waiting to go out until it has its id there. Each
    comment's id at the source is kept once per item, so none is imported or sent twice."""

    __tablename__ = "sync_comments"
    __table_args__ = (UniqueConstraint("item_id", "source_comment_id"),)
    message_id: Mapped[str] = mapped_column(
        ForeignKey("discussion_messages.id", ondelete="CASCADE"), primary_key=True
    )
    # Deleting the item deletes its comments, and with them any still waiting to go out.
    item_id: Mapped[str] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    source_comment_id: Mapped[str | None] = mapped_column(String(255))  # null: waiting to go out
    # What goes out: the words of one made here until the source has them, then those of an
    # edit made here (its message's `edited_at` set) until the source has taken it; null when
    # nothing waits (and for one that came in). A deletion here waits as its message's.
    text: Mapped[str | None] = mapped_column(Text)
    # When it was first sent, while its id there is unknown: an answer lost (a 5xx once it was
    # made, a hang, a crash) has it looked for there before it is sent again.
    tried_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class SyncLogLine(Base):
    """One line of a project's sync log (the API shows the last 100, newest first)."""

    __tablename__ = "sync_log"
    __table_args__ = (Index(None, "project_id", "at", "id"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    at: Mapped[datetime] = mapped_column(UTCDateTime)
    level: Mapped[str] = mapped_column(String(8))  # info | warning | error
    item_id: Mapped[str | None] = mapped_column(ID)
    source_id: Mapped[str | None] = mapped_column(String(255))
    message: Mapped[str] = mapped_column(Text)

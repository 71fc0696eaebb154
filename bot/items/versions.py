"""Item versions, and what lists cache under them.

Each channel and kind has a version in `item_counters`, which the database moves: triggers
(migration 0008) add one to it with any insert, update or delete of those items or their
assignments, of the channel's field values and mappings of that kind, or of its projects, in
the writing transaction (on PostgreSQL, the configuration's at its commit). No service moves
it, and no write, a service's or one in plain SQL, leaves it behind. List counts and the
statuses and projects items refer to are cached with the version read before they were
computed, and served only while the version is unchanged, so they can never be stale; several
processes share the versions through the database. A channel's counters are made with it:
before that a list reads no version and caches nothing. Counts whose filter reaches further
than the items and their assignments (the assignees' names, the statuses) are counted afresh
every time.
"""

from typing import Any

from sqlalchemy import BindParameter, Label, select

from bot.db.tables import Item, ItemAssignee, ItemCounter
from bot.lru import LeastRecentlyUsed
from bot.odata.query import Query
from bot.schemas import ItemKind

Key = tuple[str, ...]


class VersionedCache:
    """Values by key, each with the version it was computed at; least recently used go first."""

    def __init__(self, max_entries: int = 10_000) -> None:
        self._entries: LeastRecentlyUsed[Key, tuple[int, Any]] = LeastRecentlyUsed(max_entries)

    def get(self, key: Key, version: int) -> Any | None:
        entry = self._entries.get(key)
        return entry[1] if entry is not None and entry[0] == version else None

    def put(self, key: Key, version: int, value: Any) -> None:
        self._entries.put(key, (version, value))


_VERSIONED_TABLES = {Item.__table__, ItemAssignee.__table__}


def count_key(query: Query, *, channel_id: str, kind: ItemKind) -> Key | None:
    """The cache key of a query's count, or None when its filter reads other tables."""
    if query.filter_tables - _VERSIONED_TABLES:
        return None
    return ("count", channel_id, kind.value, query.filter_text or "")


def references_key(*, channel_id: str, kind: ItemKind) -> Key:
    """The cache key of the statuses and projects a channel's items of one kind refer to."""
    return ("references", channel_id, kind.value)


VERSION = "_version"


def version_column(*, channel_id: str | BindParameter[str], kind: ItemKind) -> Label[int]:
    """The channel's version for `kind` as a column (`VERSION`) of a list's own statement."""
    counter = ItemCounter.__table__.c
    version = select(counter.version).where(
        counter.channel_id == channel_id, counter.kind == kind.value
    )
    return version.scalar_subquery().label(VERSION)

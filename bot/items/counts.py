"""Exact list counts, cached per process under a version that every item change bumps.

Each channel and kind has a version in `item_counters`, bumped in the same transaction as any
change to those items. A count is cached with the version read before it was computed, and served
only while the version is unchanged, so it can never be stale; several processes share the
versions through the database. Filters that reach outside the items table (assignees, statuses)
are counted afresh every time, since changes there do not bump the version.
"""

from collections import OrderedDict

from sqlalchemy import select, update
from sqlalchemy.sql.util import find_tables

from bot.db.tables import Item, ItemCounter
from bot.odata.query import Query
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

Key = tuple[str, str, str]


class CountCache:
    """Counts by (channel, kind, filter text), each with the version it was computed at."""

    def __init__(self, max_entries: int = 10_000) -> None:
        self._entries: OrderedDict[Key, tuple[int, int]] = OrderedDict()
        self._max_entries = max_entries

    def get(self, key: Key, version: int) -> int | None:
        entry = self._entries.get(key)
        if entry is None or entry[0] != version:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put(self, key: Key, version: int, count: int) -> None:
        self._entries[key] = (version, count)
        self._entries.move_to_end(key)
        if len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)


async def bump(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> None:
    """Mark the channel's items of this kind changed (call inside the changing transaction)."""
    await uow.session.execute(
        update(ItemCounter)
        .where(ItemCounter.channel_id == channel_id, ItemCounter.kind == kind.value)
        .values(version=ItemCounter.version + 1)
    )


def cache_key(query: Query, *, channel_id: str, kind: ItemKind) -> Key | None:
    """The cache key of a query's count, or None when its filter reads other tables."""
    if query.filter is not None and set(find_tables(query.filter)) - {Item.__table__}:
        return None
    return (channel_id, kind.value, query.filter_text or "")


async def version(uow: UnitOfWork, *, channel_id: str, kind: ItemKind) -> int:
    found = await uow.session.scalar(
        select(ItemCounter.version).where(
            ItemCounter.channel_id == channel_id, ItemCounter.kind == kind.value
        )
    )
    return found or 0

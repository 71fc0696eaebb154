"""Lists sorted by status, priority or severity, read value by value.

Such a sort is by the folded name, ties by id. A channel holds few distinct names of each, so a
page sorted by one is the concatenation, in the folded names' order, of each name's items in
id order: one range each of the index on `(channel_id, kind, id)`, read until the page is full,
instead of every item of the channel folded and sorted. The names come from the items
themselves (counted once per list version), so names outside the catalogue, case variants of
one name and a missing severity are all where the plain `ORDER BY` puts them.
"""

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, select

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared, Row
from bot.db.tables import Item
from bot.db.text import fold_case
from bot.db.uow import UnitOfWork
from bot.items import versions
from bot.lru import LeastRecentlyUsed
from bot.odata import keyset
from bot.odata.query import Query
from bot.schemas import ItemKind

ITEM = Item.__table__.c
FIELDS = {"status": ITEM.status, "priority": ITEM.priority, "severity": ITEM.severity}
# Past this $skip a page is read the plain way: each value would be read that deep.
MAX_SKIP = 1000
PLANS_KEPT = 256
_VALUE, _VALUES, _AFTER, _CHANNEL = "value", "values", "after_id", "channel_id"
LIMIT = "limit"

Build = Callable[[], Select[Any]]


def sorted_field(query: Query) -> str | None:
    """The field a query's list is read value by value for: sorted by status, priority or
    severity alone (ties by id, the same way), not too deep by $skip; else None."""
    if len(query.order) != 2 or query.skip > MAX_SKIP:
        return None
    first, tie = query.order
    if first.property.name not in FIELDS or tie.property.name != "_id":
        return None
    return first.property.name if tie.descending == first.descending else None


@dataclass(frozen=True, slots=True)
class Group:
    """The items whose value folds to `key` (None: no value), and the names they hold."""

    key: str | None
    names: tuple[str, ...]


class ValueSortedPages:
    """The prepared statements of value-sorted pages, by shape, and the names each channel's
    items hold, by list version."""

    def __init__(self, kept: int = PLANS_KEPT) -> None:
        self._kept: LeastRecentlyUsed[Hashable, Prepared] = LeastRecentlyUsed(kept)

    async def rows(
        self,
        uow: UnitOfWork,
        *,
        kind: ItemKind,
        field: str,
        query: Query,
        rows: Build,
        extra: Callable[[], tuple[ColumnElement[Any], ...]],
        here: Mapping[str, Any],
    ) -> list[Row]:
        """What the plain page statement would fetch (the page and one row more, after $skip
        and the cursor), one value's range after another."""
        groups = await self._groups(uow, kind, field, here)
        fetched: list[Row] = []
        skip, wanted = query.skip, query.top + 1
        for group, after in walk(groups, query):
            statement, values = self.part(
                (kind, uow.cache is None, field), query, group, after, rows, extra
            )
            part = await uow.rows(
                statement, {**here, **values, LIMIT: skip + wanted - len(fetched)}
            )
            dropped = min(skip, len(part))
            skip -= dropped
            fetched.extend(part[dropped:])
            if len(fetched) >= wanted:
                break
        return fetched

    def part(
        self,
        list_shape: tuple[Any, ...],
        query: Query,
        group: Group,
        after: str | None,
        rows: Build,
        extra: Callable[[], tuple[ColumnElement[Any], ...]],
    ) -> tuple[Prepared, dict[str, Any]]:
        """One group's statement (its limit the parameter `LIMIT`) and its values."""
        shape = (*list_shape, group.key is None, len(group.names) > 1)
        values: dict[str, Any] = {}
        if len(group.names) > 1:
            values[_VALUES] = list(group.names)
        elif group.names:
            values[_VALUE] = group.names[0]
        if after is not None:
            values[_AFTER] = after
        return self._part(shape, query, after is not None, rows, extra), values

    def _part(
        self,
        shape: tuple[Any, ...],
        query: Query,
        cursor: bool,
        rows: Build,
        extra: Callable[[], tuple[ColumnElement[Any], ...]],
    ) -> Prepared:
        """One value's rows under the query's filter, in id order, after an id if `cursor`."""
        _kind, _uncached, field, null, several = shape
        descending = query.order[0].descending
        key = (*shape, query.filter_text, descending, cursor)
        prepared = self._kept.get(key)
        if prepared is None:
            column = FIELDS[field]
            statement = rows()
            if query.filter is not None:
                statement = statement.where(query.filter)
            if null:
                statement = statement.where(column.is_(None))
            elif several:
                statement = statement.where(one_of_named(column, _VALUES))
            else:
                statement = statement.where(column == bindparam(_VALUE))
            if cursor:
                after = bindparam(_AFTER, type_=ITEM.id.type)
                statement = statement.where(ITEM.id < after if descending else ITEM.id > after)
            statement = statement.add_columns(*keyset.sort_columns(query.order), *extra())
            by_id = ITEM.id.desc() if descending else ITEM.id.asc()
            statement = statement.order_by(by_id).limit(bindparam(LIMIT))
            prepared = self._kept.put(key, Prepared(statement))
        return prepared

    async def _groups(
        self, uow: UnitOfWork, kind: ItemKind, field: str, here: Mapping[str, Any]
    ) -> list[Group]:
        """The folded values the channel's items of this kind hold, each with its names."""
        cache = uow.cache
        version = None
        if cache is not None:
            version = await uow.value(self._version(kind), here)
        cache_key = ("sorted values", here[_CHANNEL], kind.value, field)
        if cache is not None and version is not None:
            cached = cache.get(cache_key, version)
            if cached is not None:
                return list(cached)
        groups = grouped(await uow.rows(self.names(kind, field), here))
        if cache is not None and version is not None:
            cache.put(cache_key, version, tuple(groups))
        return groups

    def _version(self, kind: ItemKind) -> Prepared:
        key = ("version", kind)
        prepared = self._kept.get(key)
        if prepared is None:
            column = versions.version_column(channel_id=bindparam(_CHANNEL), kind=kind)
            prepared = self._kept.put(key, Prepared(select(column)))
        return prepared

    def names(self, kind: ItemKind, field: str) -> Prepared:
        """The distinct names the channel's items hold, each folded as the sort folds it."""
        key = ("names", kind, field)
        prepared = self._kept.get(key)
        if prepared is None:
            column = FIELDS[field]
            statement = (
                select(column.label("name"), fold_case(column).label("folded"))
                .where(ITEM.channel_id == bindparam(_CHANNEL), ITEM.kind == kind.value)
                .group_by(column)
            )
            prepared = self._kept.put(key, Prepared(statement))
        return prepared


def grouped(rows: Sequence[Mapping[str, Any]]) -> list[Group]:
    """The groups of the names the `names` statement read."""
    names: dict[str | None, list[str]] = {}
    for row in rows:
        if row["name"] is None:
            names[None] = []
        else:
            names.setdefault(row["folded"], []).append(row["name"])
    return [Group(key, tuple(sorted(held))) for key, held in names.items()]


def walk(groups: Sequence[Group], query: Query) -> list[tuple[Group, str | None]]:
    """The groups a page may read, in the page's order, each with the id its rows follow."""
    descending = query.order[0].descending
    walked = []
    for group in sorted(groups, key=_rank, reverse=descending):
        after = _after(group, query.after, descending)
        if after is not _BEFORE:
            walked.append((group, after))
    return walked


_BEFORE = object()


def _rank(group: Group) -> tuple[bool, str]:
    """A group's place going up: no value first (as OData puts nulls), then by folded name."""
    return (group.key is not None, group.key or "")


def _after(group: Group, cursor: Sequence[Any] | None, descending: bool) -> Any:
    """Where a group's rows start after the cursor: None (all of them), the id they follow,
    or `_BEFORE` (the cursor is past them all)."""
    if cursor is None:
        return None
    key, last_id = cursor
    if group.key == key:
        return last_id
    behind = _rank(group) < _rank(Group(key, ()))
    return _BEFORE if behind != descending else None

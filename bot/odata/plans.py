"""List statements prepared once per request shape, so a repeated list builds no SQL at all.

A list's page and count depend on its kind, its filter, order and paging, and, for a next link,
on which of its cursor's values are null. Where it is read (a channel, a caller) is not part of
the shape: the statements name it by parameter (`bindparam("channel_id")`, say), and each
request binds it with the cursor's values. Each distinct shape is built, compiled and kept
(`Prepared`), shared by every channel and caller; the next request of that shape only
binds its values and runs them. Building and recognising a page statement afresh cost more
than SQLite took to run it.
"""

from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Select, bindparam

from bot.db.statements import Prepared
from bot.lru import LeastRecentlyUsed
from bot.odata.keyset import sort_expression
from bot.odata.query import Query, apply, count_statement

# Shapes kept per kind of list (clients ask for the same few lists again and again, in every
# channel). A page's prepared statement holds about 70 KiB, compiled.
PLANS_KEPT = 256
Build = Callable[[], Select[Any]]


def shape(query: Query) -> tuple[Hashable, ...]:
    """What a query's SQL depends on within one kind of list: equal filter texts give equal filters,
    and a cursor counts only by which of its values are null."""
    nulls = None if query.after is None else tuple(value is None for value in query.after)
    order = tuple((key.property.name, key.descending) for key in query.order)
    return (query.filter_text, order, query.top, query.skip, nulls)


class ListStatements:
    """The prepared pages and counts of one kind of list, by shape (`kind` tells apart the lists
    one instance serves); the least recently used are dropped first."""

    def __init__(self, kept: int = PLANS_KEPT) -> None:
        self._kept: LeastRecentlyUsed[Hashable, Prepared] = LeastRecentlyUsed(kept)

    def page(
        self,
        kind: Hashable,
        query: Query,
        rows: Build,
        extra: Callable[[], tuple[ColumnElement[Any], ...]] = tuple,
    ) -> tuple[Prepared, dict[str, Any]]:
        """The page statement of `query` over the statement `rows` builds (read with its sort
        values, then the `extra` columns), and the cursor values to run it with."""
        placeholders, values = _cursor(query)
        key = ("page", kind, shape(query))
        prepared = self._kept.get(key)
        if prepared is None:
            statement = apply(rows(), replace(query, after=placeholders), keyed=True)
            prepared = self._kept.put(key, Prepared(statement.add_columns(*extra())))
        return prepared, values

    def count(self, kind: Hashable, query: Query, counting: Build) -> Prepared:
        """The count statement `counting` builds for `query` (its filter decides the SQL)."""
        key = ("count", kind, query.filter_text)
        prepared = self._kept.get(key)
        if prepared is None:
            prepared = self._kept.put(key, Prepared(counting()))
        return prepared


def counted(rows: Build, query: Query) -> Build:
    """The plain count of a list: `rows` under the query's filter."""
    return lambda: count_statement(rows(), query)


def _cursor(query: Query) -> tuple[tuple[BindParameter[Any] | None, ...] | None, dict[str, Any]]:
    """The cursor as named parameters (None where its value is null, which changes the SQL),
    and their values."""
    if query.after is None:
        return None, {}
    placeholders = tuple(
        None
        if value is None
        else bindparam(f"after{index}", type_=sort_expression(key).type, required=True)
        for index, (key, value) in enumerate(zip(query.order, query.after, strict=True))
    )
    values = {
        f"after{index}": value for index, value in enumerate(query.after) if value is not None
    }
    return placeholders, values

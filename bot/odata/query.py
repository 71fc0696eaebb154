"""A list request's query options (or a filter a program built) → a checked Query, and a Query
→ SQL."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, TypeVar, TypeVarTuple

from odata_query import ast
from sqlalchemy import ColumnElement, FromClause, Select, func
from sqlalchemy.sql.util import find_tables

from bot.errors import BadRequest
from bot.odata import keyset
from bot.odata.errors import invalid
from bot.odata.model import EntitySet, SortKey
from bot.odata.parse import parse_filter
from bot.odata.translate import translate

DEFAULT_TOP = 100
MAX_TOP = 1000
OPTIONS = frozenset({"$filter", "$orderby", "$top", "$skip", "$count", "$select", "$skiptoken"})
# More digits than this exceed any table; read as "huge" so int() never meets thousands of digits.
_MAX_DIGITS = 18
_HUGE = 10**_MAX_DIGITS
_NOT_WHOLE = "expected a whole number, 0 or more"
_BUILT = "\x00"  # what a built filter's text starts with

T = TypeVar("T")
Row = TypeVarTuple("Row")


@dataclass(frozen=True, eq=False)  # eq=False: the filter is a SQL expression
class Query:
    """What a list request asked for, checked against its entity set."""

    filter: ColumnElement[bool] | None
    # As the client wrote it, or a built filter's tree as text: equal texts give equal filters.
    filter_text: str | None
    order: tuple[SortKey, ...]  # the requested or default keys, then the entity key if absent
    top: int
    skip: int
    count: bool
    select: tuple[str, ...] | None  # None: every field; else the names, the key among them
    after: tuple[Any, ...] | None = None  # from $skiptoken: the sort values rows must follow

    @cached_property
    def filter_tables(self) -> frozenset[FromClause]:
        """The tables the filter reads (none without one)."""
        return frozenset() if self.filter is None else frozenset(find_tables(self.filter))


def parse_query(
    params: Mapping[str, str], entity: EntitySet, *, count_by_default: bool = False
) -> Query:
    """The Query that `params` (a request's query string) ask of `entity`; a mistake is a 400."""
    seen: set[str] = set()
    for name, _value in params.items():  # a request's MultiDict: each name as often as given
        if name.startswith("$") and name not in OPTIONS:
            raise BadRequest(f"Unsupported query option: {name}")
        if name.startswith("$") and name in seen:
            # OData: a system query option appears at most once; which one was meant is a guess.
            raise BadRequest(f"{name} is given more than once")
        seen.add(name)
    text = params.get("$filter")
    query = Query(
        filter=None if text is None else translate(parse_filter(text), entity),
        filter_text=text,
        order=_order(params.get("$orderby"), entity),
        top=min(_whole_number("$top", params.get("$top"), DEFAULT_TOP), MAX_TOP),
        skip=_whole_number("$skip", params.get("$skip"), 0),
        count=_boolean("$count", params.get("$count"), count_by_default),
        select=_select(params.get("$select"), entity),
    )
    token = params.get(keyset.TOKEN)
    return query if token is None else with_cursor(query, token)


def built_query(
    tree: ast._Node | None,
    entity: EntitySet,
    *,
    order: tuple[SortKey, ...] = (),
    top: int,
    skip: int,
    count: bool,
) -> Query:
    """The Query of a filter a program built as a syntax tree (a chat command's), checked and
    translated as a client's, with no text to quote and parse again; `entity`'s default order
    unless `order`."""
    for option, number in (("$top", top), ("$skip", skip)):
        if number < 0:
            raise invalid(option, _NOT_WHOLE)
    return Query(
        filter=None if tree is None else translate(tree, entity),
        # After a NUL, which a client's $filter never holds: the two never meet.
        filter_text=None if tree is None else _BUILT + repr(tree),
        order=_stable(order or entity.default_order, entity),
        top=min(top, MAX_TOP),
        skip=min(skip, _HUGE),
        count=count,
        select=None,
    )


def with_cursor(query: Query, token: str) -> Query:
    """`query` continued after the row a next link's `$skiptoken` names."""
    return replace(query, after=keyset.decode(token, query.order))


def apply(statement: Select[*Row], query: Query, *, keyed: bool = False) -> Select[*Row]:
    """`statement` filtered, sorted and paged, with one row past the page to tell if more follow.

    `keyed` adds the sort values as `_sort<n>` columns, for next links by keyset (`keyset.encode`).
    """
    if query.filter is not None:
        statement = statement.where(query.filter)
    if keyed:  # same rows, a few more columns: the result type a caller reads stays usable
        statement = statement.add_columns(*keyset.sort_columns(query.order))
    return keyset.sorted_page(
        statement, query.order, query.after, limit=query.top + 1, offset=query.skip, keyed=keyed
    )


def count_statement(statement: Select[*Row], query: Query) -> Select[int]:
    """How many rows `statement` gives under the query's filter, whatever the paging."""
    if query.filter is not None:
        statement = statement.where(query.filter)
    # The same FROM and WHERE with count(*) as the only column: outer joins that nothing reads
    # from are then dropped by both databases, so the count touches the filtered table alone.
    return statement.with_only_columns(func.count(), maintain_column_froms=True).order_by(None)


def page(rows: Sequence[T], query: Query) -> tuple[list[T], bool]:
    """The page's rows out of what `apply` fetched, and whether more rows follow."""
    # $top=0 asks for the count alone; a next link would ask the same again, forever.
    return list(rows[: query.top]), 0 < query.top < len(rows)


def _order(text: str | None, entity: EntitySet) -> tuple[SortKey, ...]:
    if text is None:
        keys = entity.default_order
    else:
        keys = tuple(_sort_key(part, entity) for part in text.split(","))
    names = [key.property.name for key in keys]
    for name in names:
        if names.count(name) > 1:
            raise invalid("$orderby", f"'{name}' is listed twice")
    return _stable(keys, entity)


def _stable(keys: tuple[SortKey, ...], entity: EntitySet) -> tuple[SortKey, ...]:
    """`keys`, then the entity's key unless they tell every row apart already."""
    names = [key.property.name for key in keys]
    if entity.key.name in names or not entity.unique.isdisjoint(names):
        return keys  # unique already: an index on (…, key) reads the order, no tie to break
    # A unique last key keeps pages stable; going the last key's way, an index on (…, key, id)
    # gives the whole order read in one direction.
    return (*keys, SortKey(entity.key, descending=bool(keys) and keys[-1].descending))


def _sort_key(part: str, entity: EntitySet) -> SortKey:
    words = part.split()
    if not 1 <= len(words) <= 2 or (len(words) == 2 and words[1].lower() not in ("asc", "desc")):
        raise invalid(
            "$orderby",
            f"expected 'property', 'property asc' or 'property desc', got {part.strip()!r}",
        )
    name = words[0]
    prop = entity.properties.get(name)
    if prop is None and name not in entity.selectable:
        raise invalid("$orderby", f"unknown property '{name}'")
    if prop is None or not prop.sortable:
        raise invalid("$orderby", f"'{name}' cannot be sorted")
    return SortKey(prop, descending=len(words) == 2 and words[1].lower() == "desc")


def _whole_number(option: str, text: str | None, default: int) -> int:
    if text is None:
        return default
    if not (text.isascii() and text.isdigit()):
        raise invalid(option, _NOT_WHOLE)
    return int(text) if len(text) <= _MAX_DIGITS else _HUGE


def _boolean(option: str, text: str | None, default: bool) -> bool:
    if text is None:
        return default
    if text.lower() not in ("true", "false"):
        raise invalid(option, "expected true or false")
    return text.lower() == "true"


def _select(text: str | None, entity: EntitySet) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = [name.strip() for name in text.split(",")]
    if "*" in names:
        return None
    for name in names:
        if name not in entity.selectable:
            raise invalid("$select", f"unknown property '{name}'" if name else "an empty name")
    return tuple(dict.fromkeys([entity.key.name, *names]))

"""Keyset paging: next links carry the last row's sort values, so page 2,000 costs what page 1
does (an OFFSET would read and drop every row before it).

Nulls sort as OData says: before every value going up, after them going down. That is the order
of an index in both databases (PostgreSQL's list indexes say `NULLS FIRST`), so a list sorted
by one indexed key, ties by id the same way, is one index read forwards or backwards, and the
rows after a cursor are one range of it: two when they straddle that key's nulls.
"""

import base64
import binascii
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVarTuple, cast

import orjson
from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Label,
    Select,
    UnaryExpression,
    and_,
    column,
    false,
    literal,
    literal_column,
    or_,
    select,
    tuple_,
    type_coerce,
    union_all,
)
from sqlalchemy.types import NullType

from bot.db.text import fold_case
from bot.odata.errors import invalid
from bot.odata.model import PropertyKind, SortKey

TOKEN = "$skiptoken"
# What the sorted columns can hold: 32-bit integers, text without NUL, sane lengths.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_TEXT = 4096

Row = TypeVarTuple("Row")


def sort_expression(key: SortKey) -> ColumnElement[Any]:
    """What a key sorts by: text folded, as comparisons fold it."""
    prop = key.property
    folded = prop.folded_expression
    if folded is not None:
        return folded
    if prop.kind in (PropertyKind.TEXT, PropertyKind.NAME):
        return fold_case(prop.expression)
    return prop.expression


def sort_columns(order: Sequence[SortKey]) -> list[Label[Any]]:
    """The sort values as extra result columns, read back to make the next token. They come as
    the driver gives them, unconverted: only a page's last row is ever read (`encode`)."""
    return [
        type_coerce(sort_expression(key), _AS_READ).label(_sort_name(index))
        for index, key in enumerate(order)
    ]


_AS_READ = NullType()


def ordering(key: SortKey, expression: ColumnElement[Any]) -> UnaryExpression[Any]:
    """`expression` sorted as `key` asks, nulls where OData puts them."""
    ordered = expression.desc() if key.descending else expression.asc()
    if not key.property.nullable:
        return ordered
    # Said out loud for PostgreSQL, whose default is the opposite; SQLite's default already.
    return ordered.nulls_last() if key.descending else ordered.nulls_first()


def sorted_page(
    statement: Select[*Row],
    order: Sequence[SortKey],
    values: Sequence[Any] | None,
    *,
    limit: int,
    offset: int,
    keyed: bool,
) -> Select[*Row]:
    """`statement` sorted by `order`, after the row with these sort values if any, limited.

    Rows after a cursor in two ranges (see `ranges_after`) are read as two sorted selects merged
    by a UNION ALL: one condition with an OR would make both databases scan the index from its
    end. The merge sorts by the sort values, so they must be among the columns (`keyed`); without
    them the ranges are joined by an OR (lists that make no next links: small, rarely asked).
    """
    sorted_by = [ordering(key, sort_expression(key)) for key in order]
    ranges = [] if values is None else ranges_after(order, values)
    if len(ranges) < 2 or not keyed:
        if ranges:
            statement = statement.where(or_(*ranges))
        return statement.order_by(*sorted_by).limit(limit).offset(offset)
    # Each part sorted on its own (not limited: a LIMIT would hide its order from SQLite), so
    # both databases merge two index reads and stop at the limit. Parts and merge name their
    # columns (`*`, `column`): SQLAlchemy's own copies of every column per level cost more.
    every_column: ColumnElement[Any] = literal_column("*")
    parts: list[Select[Any]] = [
        select(every_column).select_from(statement.where(part).order_by(*sorted_by).subquery())
        for part in ranges
    ]
    named = {key: column(key, c.type) for key, c in statement.selected_columns.items()}
    merged_order = [ordering(key, named[_sort_name(i)]) for i, key in enumerate(order)]
    merged = select(*named.values()).select_from(union_all(*parts).subquery())
    merged_page = merged.order_by(*merged_order).limit(limit).offset(offset)
    return cast(Select[*Row], merged_page)  # the statement's own columns, read from the merge


def ranges_after(order: Sequence[SortKey], values: Sequence[Any]) -> list[ColumnElement[bool]]:
    """The rows after a row with these sort values, as conditions whose rows follow one another.

    When the keys go one way and only the first may be null, each condition is one range of an
    index on the keys: a row value `(a, id) > (:a, :id)`, or the nulls alone. Otherwise one
    condition, an OR over the keys.
    """
    first, *rest = order
    agree = all(key.descending == first.descending for key in rest)
    if not agree or any(key.property.nullable for key in rest):
        return [_or_after(order, values)]
    if not first.property.nullable:
        return [_beyond_row(order, values)]
    expression = sort_expression(first)
    if values[0] is None:
        nulls_after = and_(expression.is_(None), _beyond_row(rest, values[1:]))
        # Nulls come first going up, so every value follows them; going down, nothing does.
        return [nulls_after, expression.is_not(None)] if not first.descending else [nulls_after]
    if first.descending:  # the values below, then every null
        return [_beyond_row(order, values), expression.is_(None)]
    return [_beyond_row(order, values)]  # going up, the nulls are behind


def encode(order: Sequence[SortKey], row: Mapping[str, Any]) -> str:
    """The token for the rows after `row` (a row read with `sort_columns`)."""
    values = [_plain(key, row[_sort_name(index)]) for index, key in enumerate(order)]
    return base64.urlsafe_b64encode(orjson.dumps(values)).decode().rstrip("=")


def decode(token: str, order: Sequence[SortKey]) -> tuple[Any, ...]:
    """The sort values a token carries, checked against the keys they must fit."""
    try:
        values = orjson.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except (binascii.Error, ValueError):
        raise invalid(TOKEN, "not a token this service made") from None
    if not isinstance(values, list) or len(values) != len(order):
        raise invalid(TOKEN, "it belongs to another $orderby")
    return tuple(_typed(key, value) for key, value in zip(order, values, strict=True))


def _sort_name(index: int) -> str:
    return f"_sort{index}"


def _beyond_row(order: Sequence[SortKey], values: Sequence[Any]) -> ColumnElement[bool]:
    """Keys that all go one way, none null here, past these values: a row-value comparison."""
    expressions = [sort_expression(key) for key in order]
    if len(expressions) == 1:
        row, bound = expressions[0], values[0]
    else:
        # Each value typed by its key; a value may be a parameter already (`bot.odata.plans`).
        row = tuple_(*expressions)
        bound = tuple_(
            *(
                value if isinstance(value, BindParameter) else literal(value, expression.type)
                for expression, value in zip(expressions, values, strict=True)
            )
        )
    return row < bound if order[0].descending else row > bound


def _or_after(order: Sequence[SortKey], values: Sequence[Any]) -> ColumnElement[bool]:
    """Rows after these values whatever the directions: an OR over the keys."""
    alternatives = []
    for index, key in enumerate(order):
        same = [_equal(order[j], values[j]) for j in range(index)]
        alternatives.append(and_(*same, _beyond(key, values[index])))
    return or_(*alternatives)


def _beyond(key: SortKey, value: Any) -> ColumnElement[bool]:
    expression = sort_expression(key)
    if not key.descending:  # nulls first, then values going up
        return expression.is_not(None) if value is None else expression > value
    if value is None:  # nulls come last going down: nothing is beyond them
        return false()
    beyond = expression < value
    return or_(beyond, expression.is_(None)) if key.property.nullable else beyond


def _equal(key: SortKey, value: Any) -> ColumnElement[bool]:
    expression = sort_expression(key)
    return expression.is_(None) if value is None else expression == value


def _plain(key: SortKey, value: Any) -> Any:
    """A sort value as the driver read it, in the token's JSON."""
    if value is None:
        return None
    kind = key.property.kind
    if kind is PropertyKind.DATETIME:
        if isinstance(value, str):  # SQLite's stored text of a UTC instant
            return f"{value.replace(' ', 'T')}+00:00"
        return value.isoformat()
    return bool(value) if kind is PropertyKind.BOOLEAN else value  # SQLite: 0 or 1


def _typed(key: SortKey, value: Any) -> Any:
    """A token value as its column holds it; anything a column could not hold is refused here,
    before it reaches SQL (tokens come back from clients, who may have edited them)."""
    if value is None:
        return None
    kind = key.property.kind
    try:
        if kind is PropertyKind.DATETIME:
            instant = datetime.fromisoformat(value)
            if instant.tzinfo is None:
                raise ValueError
            return instant.astimezone(UTC)
        expected = {PropertyKind.INTEGER: int, PropertyKind.BOOLEAN: bool}.get(kind, str)
        if type(value) is not expected:
            raise TypeError
        if isinstance(value, int) and not INT32_MIN <= value <= INT32_MAX:
            raise ValueError
        if isinstance(value, str) and ("\x00" in value or len(value) > MAX_TEXT):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise invalid(TOKEN, f"a value for '{key.property.name}' has the wrong type") from None
    return value

"""Keyset paging: next links carry the last row's sort values, so page 2,000 costs what page 1
does (an OFFSET would read and drop every row before it)."""

import base64
import binascii
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import ColumnElement, Label, and_, false, or_

from bot.odata.errors import invalid
from bot.odata.model import PropertyKind, SortKey
from bot.odata.text import fold_case

TOKEN = "$skiptoken"
# What the sorted columns can hold: 32-bit integers, text without NUL, sane lengths.
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_TEXT = 4096


def sort_expression(key: SortKey) -> ColumnElement[Any]:
    """What a key sorts by: text folded, as comparisons fold it."""
    prop = key.property
    if prop.kind in (PropertyKind.TEXT, PropertyKind.NAME):
        return fold_case(prop.expression)
    return prop.expression


def sort_columns(order: Sequence[SortKey]) -> list[Label[Any]]:
    """The sort values as extra result columns, read back to make the next token."""
    return [sort_expression(key).label(f"_sort{index}") for index, key in enumerate(order)]


def after(order: Sequence[SortKey], values: Sequence[Any]) -> ColumnElement[bool]:
    """Rows that come after a row with these sort values, in this order (nulls as `apply` puts
    them: last going up, first going down)."""
    alternatives = []
    for index, key in enumerate(order):
        same = [_equal(order[j], values[j]) for j in range(index)]
        alternatives.append(and_(*same, _beyond(key, values[index])))
    return or_(*alternatives)


def encode(order: Sequence[SortKey], row: Mapping[str, Any]) -> str:
    """The token for the rows after `row` (a row read with `sort_columns`)."""
    values = [_plain(row[f"_sort{index}"]) for index in range(len(order))]
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


def _beyond(key: SortKey, value: Any) -> ColumnElement[bool]:
    expression = sort_expression(key)
    if key.descending:  # nulls first, then values going down
        return expression.is_not(None) if value is None else expression < value
    if value is None:  # nulls come last going up: nothing is beyond them
        return false()
    beyond = expression > value
    return or_(beyond, expression.is_(None)) if key.property.nullable else beyond


def _equal(key: SortKey, value: Any) -> ColumnElement[bool]:
    expression = sort_expression(key)
    return expression.is_(None) if value is None else expression == value


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


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

"""What a list exposes to OData queries: its properties, to-many collections and key."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement
from sqlalchemy.orm import QueryableAttribute

from bot.db.types import SqlExpression

# The schema classes hold SQL expressions, whose `==` builds SQL instead of comparing, so they
# compare by identity (eq=False).


class PropertyKind(StrEnum):
    """How a property's values compare."""

    TEXT = "text"  # free text: every comparison ignores case
    NAME = "name"  # a value's name (status, priority): eq, ne and in exact, the rest ignore case
    INTEGER = "integer"
    BOOLEAN = "boolean"
    DATETIME = "datetime"  # aware UTC, stored in UTCDateTime columns
    ID = "id"  # a lowercase hex id: compared exactly


def _expression(column: SqlExpression) -> ColumnElement[Any]:
    if isinstance(column, QueryableAttribute):
        return column.expression
    return column


@dataclass(frozen=True, eq=False)
class Property:
    """A scalar property clients may filter, sort and select by its JSON name."""

    name: str
    column: SqlExpression
    kind: PropertyKind
    sortable: bool = True
    # A column on the row holding the text already folded, which sorts as the folded text
    # would (and may have an index): what a sort by this property reads instead.
    folded: SqlExpression | None = None

    @property
    def expression(self) -> ColumnElement[Any]:
        """The property as a Core expression (a mapped attribute gives its column)."""
        return _expression(self.column)

    @property
    def folded_expression(self) -> ColumnElement[Any] | None:
        """The folded column as a Core expression, if the property has one."""
        return None if self.folded is None else _expression(self.folded)

    @property
    def nullable(self) -> bool:
        """Whether the column may hold NULL; assumed for expressions that do not say."""
        return bool(getattr(self.expression, "nullable", True))


@dataclass(frozen=True, eq=False)
class Collection:
    """A to-many property, usable in `$filter` with any() and all()."""

    name: str
    properties: Mapping[str, Property]  # what `u/<name>` may name inside the lambda
    # The lambda's condition on one element (None for a bare any()) → EXISTS correlated to the row.
    exists: Callable[[ColumnElement[bool] | None], ColumnElement[bool]]


class SortKey(NamedTuple):
    """One `$orderby` key."""

    property: Property
    descending: bool = False


@dataclass(frozen=True, eq=False)
class EntitySet:
    """A list's OData face: its set name and what queries may name."""

    name: str  # as in `@odata.context`, e.g. "bugs"
    properties: Mapping[str, Property]
    key: Property  # `_id`: always kept by $select, the last sort key so pages are stable
    default_order: tuple[SortKey, ...] = ()
    collections: Mapping[str, Collection] = field(default_factory=dict)
    select_only: frozenset[str] = frozenset()  # output fields $select may name, nothing else may
    # Properties no two rows share (never null): sorted by one, rows need no tie-breaker after it.
    unique: frozenset[str] = frozenset()

    @property
    def selectable(self) -> frozenset[str]:
        """Every name `$select` accepts."""
        return frozenset(self.properties) | frozenset(self.collections) | self.select_only

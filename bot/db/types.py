"""Column types that behave the same on SQLite and PostgreSQL."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, DateTime, String
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import TypeDecorator

# A Core expression, or a mapped attribute such as `Item.name`.
SqlExpression = ColumnElement[Any] | QueryableAttribute[Any]


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC in and out; SQLite forgets the zone, so it is restored on read."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTCDateTime column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def timestamp_text(column: ColumnElement[Any]) -> ColumnElement[str]:
    """A UTCDateTime column read straight as the API's text (`2026-11-22T09:30:00.000Z`), for
    rows that are only shown: the database writes the text (PostgreSQL formats, SQLite reshapes
    what it stores), and no datetime is built on the way."""
    return _TimestampTextOf(column)


class _TimestampTextOf(ColumnElement[str]):
    type = String()
    inherit_cache = True
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column

    @property
    def _from_objects(self) -> list[Any]:  # the FROM the column needs
        return self.column._from_objects


@compiles(_TimestampTextOf, "postgresql")
def _timestamp_text_postgresql(element: _TimestampTextOf, compiler: SQLCompiler, **kw: Any) -> str:
    # to_char truncates to the millisecond, as format_timestamp does.
    column = compiler.process(element.column, **kw)
    return f"""to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"""


@compiles(_TimestampTextOf, "sqlite")
def _timestamp_text_sqlite(element: _TimestampTextOf, compiler: SQLCompiler, **kw: Any) -> str:
    # UTCDateTime stores `2026-11-22 09:30:00.123456`; text written without the fraction (SQL
    # defaults such as CURRENT_TIMESTAMP) reads as `.000`. NULL stays NULL through `||`.
    column = compiler.process(element.column, **kw)
    return (
        f"(substr({column}, 1, 10) || 'T' || substr({column}, 12, 8) || '.' "
        f"|| substr({column} || '.000000', 21, 3) || 'Z')"
    )

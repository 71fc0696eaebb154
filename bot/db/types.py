"""Column types that behave the same on SQLite and PostgreSQL."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, DateTime, String
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import QueryableAttribute
from sqlalchemy.types import TypeDecorator, TypeEngine

from bot.timestamps import format_timestamp

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


class UTCTimestampText(TypeDecorator[str]):
    """A UTCDateTime column read straight as the API's text (`2026-11-22T09:30:00.000Z`), for
    rows that are only shown: SQLite's stored text is reshaped, no datetime built on the way."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        # SQLite: the stored text as it is; PostgreSQL: the driver's aware datetime.
        if dialect.name == "sqlite":
            return dialect.type_descriptor(String())
        return dialect.type_descriptor(DateTime(timezone=True))

    def process_result_value(self, value: str | datetime | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if isinstance(value, str):
            # What UTCDateTime stores on SQLite: `2026-11-22 09:30:00.000000`, UTC.
            if len(value) == _SQLITE_STORED_LENGTH:
                return f"{value[:10]}T{value[11:23]}Z"
            value = datetime.fromisoformat(value).replace(tzinfo=UTC)
        return format_timestamp(value)


_SQLITE_STORED_LENGTH = len("2026-11-22 09:30:00.000000")

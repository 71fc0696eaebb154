"""Column types that behave the same on SQLite and PostgreSQL."""

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import QueryableAttribute
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

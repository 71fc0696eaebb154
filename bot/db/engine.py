"""The async engine and session factory."""

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from bot.odata.text import register_sqlite_functions

SQLITE_BUSY_TIMEOUT_MS = 5000


def create_engine(url: str) -> AsyncEngine:
    """An engine for a SQLite file (WAL, busy timeout, foreign keys) or PostgreSQL via asyncpg."""
    parsed = make_url(url)
    # JSON columns (event payloads, buckets) through orjson: several times faster than json.
    json_options: dict[str, Any] = {
        "json_serializer": lambda value: orjson.dumps(value).decode(),
        "json_deserializer": orjson.loads,
    }
    if parsed.get_backend_name() != "sqlite":
        return create_async_engine(url, pool_size=10, max_overflow=10, **json_options)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, **json_options)
    event.listen(engine.sync_engine, "connect", _tune_sqlite)
    return engine


def _tune_sqlite(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
    # SQLite's lower() folds ASCII only; OData text comparisons need all of Unicode.
    register_sqlite_functions(dbapi_connection)


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)

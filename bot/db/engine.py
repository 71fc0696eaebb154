"""The async engine and session factory."""

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_dbapi
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from bot.db import sqlite_inline
from bot.db.reads import TransactionReads
from bot.db.text import register_sqlite_functions

# SQLite runs on the event loop (sqlite_inline), so its own busy wait would stall every request:
# keep it short, and wait for another process's writer in `take_sqlite_write_lock` instead.
SQLITE_BUSY_TIMEOUT_MS = 50
SQLITE_WRITE_WAIT_S = 5.0


# How long one statement may run before the database stops it (`Settings.query_timeout_seconds`).
DEFAULT_STATEMENT_TIMEOUT_S = 5.0


def create_engine(
    url: str, *, statement_timeout_s: float = DEFAULT_STATEMENT_TIMEOUT_S
) -> AsyncEngine:
    """An engine for a SQLite file (WAL, busy timeout, foreign keys) or PostgreSQL via asyncpg,
    whose statements stop after `statement_timeout_s` (`bot.db.timeouts`)."""
    parsed = make_url(url)
    # JSON columns (event payloads, buckets) through orjson: several times faster than json.
    shared_options: dict[str, Any] = {
        "json_serializer": lambda value: orjson.dumps(value).decode(),
        "json_deserializer": orjson.loads,
        # A failed statement's error, logged, never shows its values: they hold webhook
        # secrets, sealed credentials and token hashes.
        "hide_parameters": True,
    }
    if parsed.get_backend_name() != "sqlite":
        timeout_ms = str(round(statement_timeout_s * 1000))
        return create_async_engine(
            url,
            pool_size=10,
            max_overflow=10,
            connect_args={"server_settings": {"statement_timeout": timeout_ms}},
            **shared_options,
        )
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    # sqlite_inline instead of aiosqlite: short statements run on the loop, without a hop each.
    module = AsyncAdapt_aiosqlite_dbapi(sqlite_inline, sqlite3)
    # One `Lessons` for all the engine's connections: what its statements taught is its own.
    connect_args = {
        "timeout_s": statement_timeout_s,
        "prepare": _tune_sqlite,
        "lessons": sqlite_inline.Lessons(),
    }
    # The last connection given back is the next taken: a SQLite connection drops its whole page
    # cache when another connection wrote since it last read, so taking the pool's connections
    # in turn made every create read some 70 pages back from the file (LIFO: 4).
    return create_async_engine(
        url, module=module, pool_use_lifo=True, connect_args=connect_args, **shared_options
    )


def _tune_sqlite(raw: sqlite3.Connection) -> None:
    """Ready a new connection, the pool's or a reader's (`sqlite_inline`)."""
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    raw.execute("PRAGMA foreign_keys=ON")
    raw.execute("PRAGMA synchronous=NORMAL")
    # Temporary files in memory. Every item write sets off a trigger (the list versions,
    # migration 0008), which gives its statement a journal of its own, spilled past 64 KiB to a
    # new temp file: a create paid a file's creation and removal about every other time.
    raw.execute("PRAGMA temp_store=MEMORY")
    # SQLite's lower() folds ASCII only; OData text comparisons need all of Unicode.
    register_sqlite_functions(raw)


async def take_sqlite_write_lock(reads: TransactionReads) -> None:
    """BEGIN IMMEDIATE, waiting for another process's writer without blocking the event loop.
    On the driver connection the unit's transaction uses: the session's own statement
    machinery cost a create more than the statement did."""
    _dialect, connection = await reads.connection()
    deadline = time.monotonic() + SQLITE_WRITE_WAIT_S
    pause = 0.001
    while True:
        try:
            await connection.fetch("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(pause * 2, 0.05)


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)

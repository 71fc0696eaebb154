"""The raw-driver ceiling's two databases behind one interface: sqlite3 called directly on the
event loop (no thread hop), or an asyncpg pool; each runs the hand-written statements' named
values (numbered for asyncpg) and the compiled statements' positional ones, and a transaction
as the app takes it on that database (SQLite's write lock from BEGIN IMMEDIATE, PostgreSQL's
rows locked FOR UPDATE)."""

import json
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import asyncpg
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as SQLiteDialect

# Named values for the hand-written statements, positional ones for the compiled.
Params = dict[str, Any] | list[Any]
Run = Callable[[str, dict[str, Any]], Awaitable[list[Sequence[Any]]]]
Many = Callable[[str, list[dict[str, Any]]], Awaitable[None]]


class Transaction:
    """The statements of one transaction: `run` for rows, `many` for one statement per row."""

    def __init__(self, run: Run, many: Many) -> None:
        self.run, self.many = run, many


class Sqlite:
    def __init__(self, path: str) -> None:
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA busy_timeout=5000")
        # As the app's connections (`bot.db.engine`): the same durability, the same checks.
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA foreign_keys=ON")

    dialect = SQLiteDialect()
    one_of = "IN (SELECT value FROM json_each(:ids))"
    lock = ""  # the transaction holds the write lock from its BEGIN IMMEDIATE
    events_at_once = False  # one statement per event (executemany)

    async def rows(self, sql: str, params: Params) -> list[Sequence[Any]]:
        return self.connection.execute(sql, params).fetchall()

    async def many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        self.connection.executemany(sql, rows)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield Transaction(self.rows, self.many)
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def instant(self, value: datetime) -> Any:
        # As SQLAlchemy stores it: microseconds always written, so stored texts compare in order.
        return value.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")

    def ids(self, ids: list[str]) -> Any:
        return json.dumps(ids)


class Postgres:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    dialect = PGDialect_asyncpg()
    one_of = "= ANY(:ids)"
    lock = " FOR UPDATE"
    events_at_once = True  # one statement for every event (unnest)

    async def rows(self, sql: str, params: Params) -> list[Sequence[Any]]:
        text, args = _numbered(sql, params) if isinstance(params, dict) else (sql, params)
        return await self.pool.fetch(text, *args)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self.pool.acquire() as connection, connection.transaction():

            async def run(sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
                text, args = _numbered(sql, params)
                return await connection.fetch(text, *args)

            async def many(sql: str, rows: list[dict[str, Any]]) -> None:
                text, names = _numbered_names(sql)
                await connection.executemany(text, [[row[n] for n in names] for row in rows])

            yield Transaction(run, many)

    def instant(self, value: datetime) -> Any:
        return value

    def ids(self, ids: list[str]) -> Any:
        return ids


def _numbered(sql: str, params: dict[str, Any]) -> tuple[str, list[Any]]:
    text, names = _numbered_names(sql)
    return text, [params[name] for name in names]


def _numbered_names(sql: str) -> tuple[str, list[str]]:
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return re.sub(r"(?<!:):(\w+)", number, sql), names

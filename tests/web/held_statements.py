"""The app's list statements held where they run, for as long as a test needs, so that a test
about a long statement does not depend on how fast the machine runs a big one.

On SQLite the test gives the app's connections its own `odata_lower` (the function every text
filter calls, `bot.db.text`): SQLite runs it inside the statement, on the thread the statement
runs on. On PostgreSQL a list is held by a lock the test takes (then the database holds the
statement), or before its statement is sent (then the app holds its pooled connection)."""

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from asyncpg.connection import Connection as PostgresConnection
from sqlalchemy import text

from bot.db import engine as engines
from bot.db.text import SQLITE_FUNCTION
from tests.factories import Factory
from tests.waiting import PATIENCE

# A held statement gives up only after the test's own wait has failed, naming what it waited for.
HOLD_AT_MOST_S = 2 * PATIENCE

Value = str | bytes | int | float | None
Lower = Callable[[Value], Value]


def give_sqlite(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[sqlite3.Connection], Lower]
) -> None:
    """Every SQLite connection opened from now on (the pool's and the reader threads') gets
    `make(connection)` as its `odata_lower`."""
    registered = engines.register_sqlite_functions

    def register(raw: sqlite3.Connection) -> None:
        registered(raw)
        raw.create_function(SQLITE_FUNCTION, 1, make(raw), deterministic=True)

    monkeypatch.setattr(engines, "register_sqlite_functions", register)


def _lower(value: Value) -> Value:
    return value.lower() if isinstance(value, str) else value


class PastTheBound:
    """The text-filtered list statements run `during` the block outlast the statement bound. On
    SQLite the function waits, at its first call, until the bound has passed; the statement then
    goes on, and the bound stops it at SQLite's next check of the time. On PostgreSQL the
    statement waits on a lock the test holds on the items, until the bound stops it."""

    def __init__(self, db: str, factory: Factory, bound_s: float) -> None:
        self._sqlite, self._factory, self._bound_s = db.startswith("sqlite"), factory, bound_s
        self._armed = threading.Event()
        self._ends: float | None = None

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        if self._sqlite:
            give_sqlite(monkeypatch, lambda _raw: self._lower)

    @asynccontextmanager
    async def during(self) -> AsyncIterator[None]:
        if not self._sqlite:
            async with _items_locked(self._factory):
                yield
            return
        self._armed.set()
        try:
            yield
        finally:
            self._armed.clear()

    def _lower(self, value: Value) -> Value:
        if self._armed.is_set():
            if self._ends is None:
                # The statement began before this first call: its bound ends before this does.
                self._ends = time.monotonic() + self._bound_s
            time.sleep(max(0.0, self._ends - time.monotonic()))
        return _lower(value)


@asynccontextmanager
async def _items_locked(factory: Factory) -> AsyncIterator[None]:
    """Every statement that reads the items waits, for the block, on a lock the test holds."""
    async with factory.engine.connect() as connection:
        await connection.execute(text("LOCK TABLE items IN ACCESS EXCLUSIVE MODE"))
        try:
            yield
        finally:
            await connection.rollback()


class HeldReads:
    """The text-filtered reads of some rows kept running until `let_go`, counted (`running`) as
    they are held. On SQLite, the reads that meet a row named `name`: on the event loop SQLite is
    made to stop the statement, as the loop's budget stops a long one (`bot.db.sqlite_inline`),
    so it runs again on a thread, where the function waits. On PostgreSQL, the filtered reads of
    the channel `channel_id`, held before they are sent, each on its pooled connection."""

    def __init__(self, *, name: str, channel_id: str) -> None:
        self._name, self._channel_id = name, channel_id
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._released = asyncio.Event()
        self._released_to_threads = threading.Event()
        self.running = 0

    def install(self, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
        if db.startswith("sqlite"):
            give_sqlite(monkeypatch, self._sqlite_function)
        else:
            monkeypatch.setattr(PostgresConnection, "fetch", self._postgres_fetch())

    def let_go(self) -> None:
        self._released.set()
        self._released_to_threads.set()

    def _held(self) -> None:
        self.running += 1

    def _sqlite_function(self, raw: sqlite3.Connection) -> Lower:
        def lower(value: Value) -> Value:
            if value == self._name and not self._released_to_threads.is_set():
                if threading.get_ident() == self._loop_thread:
                    raw.interrupt()
                else:
                    self._loop.call_soon_threadsafe(self._held)
                    if not self._released_to_threads.wait(HOLD_AT_MOST_S):
                        raise AssertionError("the test never let the held read go on")
            return _lower(value)

        return lower

    def _postgres_fetch(self) -> Callable[..., Any]:
        fetch = PostgresConnection.fetch

        async def held_fetch(
            connection: PostgresConnection, sql: str, *args: Any, **kwargs: Any
        ) -> Any:
            if " LIKE " in sql and self._channel_id in args and not self._released.is_set():
                self._held()
                async with asyncio.timeout(HOLD_AT_MOST_S):
                    await self._released.wait()
            return await fetch(connection, sql, *args, **kwargs)

        return held_fetch

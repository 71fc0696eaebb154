"""SQLite's long statements leave the event loop (`bot.db.sqlite_inline`): while one runs, the
loop serves other work, and the statement's answer is what it would have been on the loop.

Each long statement calls `held(x)` once per row, a function the test gives SQLite: on the loop
it outlasts the loop's budget, so the statement is long whatever the machine's speed; on a
thread it waits, at its first call, until the test lets it go on. So the test sees the statement
running off the loop for as long as it needs, and nothing depends on how long SQLite takes."""

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.clock import FrozenClock
from bot.db import engine as engines
from bot.db import sqlite_inline
from bot.db.engine import create_engine, session_factory
from bot.db.uow import unit_of_work
from tests.conftest import START
from tests.waiting import PATIENCE, until

# Enough rows that SQLite checks the time many times after the loop's budget has passed.
ROWS = 20_000
HELD_ROWS = (
    "(WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :rows)"
    " SELECT x FROM n WHERE held(x))"
)
HELD_COUNT = f"SELECT count(*) FROM {HELD_ROWS}"


class Held:
    """`held(x)`, as described above, on every connection the engine opens."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._loop_budget_ends: float | None = None
        self.on_thread = asyncio.Event()
        self.release = threading.Event()

    def register(self, raw: sqlite3.Connection) -> None:
        raw.create_function("held", 1, self._held)

    def _held(self, _x: int) -> int:
        if threading.get_ident() == self._loop_thread:
            if self._loop_budget_ends is None:
                self._loop_budget_ends = time.monotonic() + sqlite_inline.LOOP_BUDGET_S
            # Waits the budget out once; a statement left on the loop then runs to its end.
            time.sleep(max(0.0, self._loop_budget_ends - time.monotonic()))
            return 1
        if not self.on_thread.is_set():
            self._loop.call_soon_threadsafe(self.on_thread.set)
        if not self.release.wait(PATIENCE):
            raise AssertionError("the test never let the statement go on")
        return 1


@pytest.fixture
async def held(monkeypatch: pytest.MonkeyPatch) -> Held:
    made = Held()
    registered = engines.register_sqlite_functions

    def register(raw: sqlite3.Connection) -> None:
        registered(raw)
        made.register(raw)

    monkeypatch.setattr(engines, "register_sqlite_functions", register)
    return made


@pytest.fixture
async def engine(tmp_path: Path, held: Held) -> AsyncIterator[AsyncEngine]:
    # Bounded only against a hang: the test holds its statements as long as it needs.
    made = create_engine(
        f"sqlite+aiosqlite:///{tmp_path / 'loop.db'}", statement_timeout_s=PATIENCE
    )
    async with made.begin() as conn:
        await conn.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    try:
        yield made
    finally:
        held.release.set()
        await made.dispose()


async def _held_off_the_loop(held: Held, engine: AsyncEngine, work: asyncio.Task[int]) -> None:
    """Wait until `work`'s statement is held on a thread, then see the loop serve another unit's
    read meanwhile (which sees none of `work`'s rows: they are not committed)."""
    await until(lambda: held.on_thread.is_set() or work.done(), "the statement to be held")
    assert not work.done(), "the statement ran to its end on the loop"
    async with unit_of_work(session_factory(engine), FrozenClock(START), write=False) as uow:
        assert (await uow.session.execute(text("SELECT count(*) FROM notes"))).scalar() == 0
    assert not work.done()
    held.release.set()


async def test_a_long_read_lets_the_loop_serve_others_and_answers_in_full(
    engine: AsyncEngine, held: Held
) -> None:
    sessions = session_factory(engine)

    async def count() -> int:
        async with unit_of_work(sessions, FrozenClock(START), write=False) as uow:
            return (await uow.session.execute(text(HELD_COUNT), {"rows": ROWS})).scalar_one()

    work = asyncio.create_task(count())
    await _held_off_the_loop(held, engine, work)
    assert await work == ROWS


async def test_a_long_read_in_a_writing_unit_sees_the_units_own_writes(
    engine: AsyncEngine, held: Held
) -> None:
    sessions = session_factory(engine)

    async def write_then_count() -> int:
        async with unit_of_work(sessions, FrozenClock(START)) as uow:
            await uow.session.execute(text("INSERT INTO notes (body) VALUES ('mine')"))
            notes = f"SELECT (SELECT count(*) FROM notes) + ({HELD_COUNT})"
            return (await uow.session.execute(text(notes), {"rows": ROWS})).scalar_one()

    work = asyncio.create_task(write_then_count())
    await _held_off_the_loop(held, engine, work)
    assert await work == ROWS + 1


async def test_a_long_write_lets_the_loop_serve_others(engine: AsyncEngine, held: Held) -> None:
    sessions = session_factory(engine)
    fill = f"INSERT INTO notes (body) SELECT 'note ' || x FROM {HELD_ROWS}"

    async def write() -> int:
        async with unit_of_work(sessions, FrozenClock(START)) as uow:
            return (await uow.session.execute(text(fill), {"rows": ROWS})).rowcount

    work = asyncio.create_task(write())
    await _held_off_the_loop(held, engine, work)
    assert await work == ROWS

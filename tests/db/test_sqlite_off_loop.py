"""SQLite's long statements leave the event loop (`bot.db.sqlite_inline`): while one runs, the
loop serves other work, and the statement's answer is what it would have been on the loop."""

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.uow import unit_of_work
from tests.conftest import START

ROWS = 3_000_000
# Seconds of work for SQLite, whether read alone or inside a writing unit.
LONG_COUNT = (
    "SELECT count(*) FROM (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n"
    f" LIMIT {ROWS}) SELECT x FROM n)"
)


@pytest.fixture
async def engine(tmp_path: Path) -> AsyncIterator[AsyncEngine]:
    made = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'loop.db'}")
    async with made.begin() as conn:
        await conn.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    try:
        yield made
    finally:
        await made.dispose()


async def _ticks_while(work: asyncio.Task[int]) -> int:
    """How many times the loop ran a short sleep before `work` ended."""
    ticks = 0
    while not work.done():
        await asyncio.sleep(0.001)
        ticks += 1
    return ticks


async def test_a_long_read_lets_the_loop_serve_others_and_answers_in_full(engine: AsyncEngine):
    sessions = session_factory(engine)

    async def count() -> int:
        async with unit_of_work(sessions, FrozenClock(START), write=False) as uow:
            return (await uow.session.execute(text(LONG_COUNT))).scalar_one()

    work = asyncio.create_task(count())
    await asyncio.sleep(0)  # the statement starts
    # On the loop, the first sleep would only end with the statement: one tick in all.
    assert await _ticks_while(work) > 1
    assert await work == ROWS


async def test_a_long_read_in_a_writing_unit_sees_the_units_own_writes(engine: AsyncEngine):
    sessions = session_factory(engine)

    async def write_then_count() -> int:
        async with unit_of_work(sessions, FrozenClock(START)) as uow:
            await uow.session.execute(text("INSERT INTO notes (body) VALUES ('mine')"))
            notes = f"SELECT (SELECT count(*) FROM notes) + ({LONG_COUNT})"
            return (await uow.session.execute(text(notes))).scalar_one()

    work = asyncio.create_task(write_then_count())
    await asyncio.sleep(0)
    assert await _ticks_while(work) > 1
    assert await work == ROWS + 1


async def test_a_long_write_lets_the_loop_serve_others(engine: AsyncEngine):
    sessions = session_factory(engine)
    fill = (
        "INSERT INTO notes (body) SELECT 'note ' || x FROM (WITH RECURSIVE n(x) AS (SELECT 1"
        f" UNION ALL SELECT x + 1 FROM n LIMIT {ROWS // 3}) SELECT x FROM n)"
    )

    async def write() -> int:
        async with unit_of_work(sessions, FrozenClock(START)) as uow:
            return (await uow.session.execute(text(fill))).rowcount

    work = asyncio.create_task(write())
    await asyncio.sleep(0)
    assert await _ticks_while(work) > 1
    assert await work == ROWS // 3

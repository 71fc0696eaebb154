"""`bot.db.sqlite_inline` under what a server meets: callers cancelled mid-statement, many tasks
reading and writing at once, statements of every shape (a `WITH … SELECT` is a read), and more
than one engine in the process, each learning about its own statements."""

import asyncio
import threading
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    func,
    insert,
    literal,
    literal_column,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.clock import FrozenClock
from bot.db import engine as engine_module
from bot.db.engine import create_engine, session_factory
from bot.db.read_statements import only_reads
from bot.db.uow import unit_of_work
from tests.conftest import START

notes = Table("notes", MetaData(), Column("id", Integer, primary_key=True), Column("body", String))
CLOCK = FrozenClock(START)
# Rows a long read counts: far past the loop's budget, a fraction of a second on a thread.
LONG_ROWS = 200_000
# A long read that says where it ran: `ran_on` records the thread that starts it.
LONG_COUNT = (
    "(SELECT count(*) FROM (WITH RECURSIVE n(x) AS (SELECT ran_on(1) UNION ALL SELECT x + 1"
    f" FROM n LIMIT {LONG_ROWS}) SELECT x FROM n))"
)
# Runs until stopped, `ran_on` called at every row.
ENDLESS = (
    "SELECT count(*) FROM (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT ran_on(x) + 1"
    " FROM n LIMIT 1000000000) SELECT x FROM n)"
)


class Probe:
    """`ran_on(x)`, a SQL function on every connection the engines open: it counts its calls by
    thread, and gives `x` back."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.calls: Counter[str] = Counter()
        self._loop = loop
        self._waiting: dict[str, asyncio.Event] = {}

    def __call__(self, value: Any) -> Any:
        name = threading.current_thread().name
        self.calls[name] += 1
        for prefix, event in list(self._waiting.items()):
            if name.startswith(prefix):
                self._loop.call_soon_threadsafe(event.set)
        return value

    def threads(self) -> set[str]:
        """Where statements ran: "loop", "sqlite-reader" or "sqlite-connection"."""
        return {
            "loop" if not name.startswith("sqlite-") else name.split("_")[0] for name in self.calls
        }

    async def running_on(self, prefix: str) -> None:
        """Once a statement calls `ran_on` on a thread whose name starts with `prefix`."""
        event = self._waiting.setdefault(prefix, asyncio.Event())
        async with asyncio.timeout(30):
            await event.wait()


@pytest.fixture
async def probe(monkeypatch: pytest.MonkeyPatch) -> Probe:
    made = Probe(asyncio.get_running_loop())
    tune = engine_module._tune_sqlite

    def tune_with_probe(raw: Any) -> None:
        tune(raw)
        raw.create_function("ran_on", 1, made)

    monkeypatch.setattr(engine_module, "_tune_sqlite", tune_with_probe)
    return made


async def _engine(path: Path) -> AsyncEngine:
    # A bound far past the tests' own: a cancelled statement must stop because it was cancelled.
    made = create_engine(f"sqlite+aiosqlite:///{path}", statement_timeout_s=60)
    async with made.begin() as conn:
        await conn.execute(text("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)"))
    return made


@pytest.fixture
async def engine(tmp_path: Path, probe: Probe) -> AsyncIterator[AsyncEngine]:
    made = await _engine(tmp_path / "inline.db")
    try:
        yield made
    finally:
        await made.dispose()


async def _ticks_while(work: asyncio.Task[Any]) -> int:
    """How many times the loop ran a short sleep before `work` ended."""
    ticks = 0
    while not work.done():
        await asyncio.sleep(0.001)
        ticks += 1
    return ticks


async def _count_notes(engine: AsyncEngine) -> int:
    async with unit_of_work(session_factory(engine), CLOCK, write=False) as uow:
        return await uow.value(select(func.count()).select_from(notes))


def _counting_up_to(rows: Any) -> Any:
    """`WITH RECURSIVE n(x) AS (…) SELECT count(*) FROM n`: a count of `rows` rows."""
    n = select(literal(1).label("x")).cte("n", recursive=True)
    n = n.union_all(select((n.c.x + 1).label("x")).where(n.c.x < rows))
    return select(func.count().label("rows")).select_from(n)


# Cancellation.


async def test_a_read_cancelled_on_a_reader_thread_stops_and_the_next_ones_run(
    engine: AsyncEngine, probe: Probe
):
    sessions = session_factory(engine)
    pool = engine.sync_engine.pool
    checked_out = pool.checkedout()

    async def endless() -> None:
        async with unit_of_work(sessions, CLOCK, write=False) as uow:
            await uow.session.execute(text(ENDLESS))

    work = asyncio.create_task(endless())
    await probe.running_on("sqlite-reader")
    work.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(30):
            await work
    stopped_at = sum(probe.calls.values())

    assert pool.checkedout() == checked_out  # the cancelled unit's connection is back
    async with unit_of_work(sessions, CLOCK) as uow:
        await uow.execute(insert(notes).values(body="after"))
    assert await _count_notes(engine) == 1
    # The endless statement ran no further once its caller was gone.
    assert sum(probe.calls.values()) == stopped_at
    probe.calls.clear()
    async with unit_of_work(sessions, CLOCK, write=False) as uow:
        long = (await uow.session.execute(text(f"SELECT {LONG_COUNT}"))).scalar_one()
    assert long == LONG_ROWS
    assert "sqlite-reader" in probe.threads()  # the readers serve the next long read


async def test_a_writing_unit_cancelled_mid_statement_leaves_nothing_and_writers_go_on(
    engine: AsyncEngine, probe: Probe
):
    sessions = session_factory(engine)

    async def write_then_endless() -> None:
        async with unit_of_work(sessions, CLOCK) as uow:
            await uow.execute(insert(notes).values(body="mine"))
            await uow.session.execute(text(ENDLESS))

    work = asyncio.create_task(write_then_endless())
    await probe.running_on("sqlite-connection")  # its transaction's thread
    work.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(30):
            await work

    assert await _count_notes(engine) == 0  # rolled back
    async with unit_of_work(sessions, CLOCK) as uow:  # the writers' queue moves on
        await uow.execute(insert(notes).values(body="next"))
    assert await _count_notes(engine) == 1


# Many tasks at once.


async def test_reads_and_writes_from_many_tasks_interleave_and_no_write_is_lost(
    engine: AsyncEngine, probe: Probe
):
    sessions = session_factory(engine)
    tasks, rounds = 6, 3
    # One statement, one snapshot: a long count, and the notes as they stand.
    long_read = select(
        literal_column(LONG_COUNT).label("long"),
        select(func.count()).select_from(notes).scalar_subquery().label("notes"),
    )

    async def writer(number: int) -> None:
        for round_ in range(rounds):
            body = f"{number}-{round_}"
            async with unit_of_work(sessions, CLOCK) as uow:
                await uow.execute(insert(notes).values(body=body))
                await uow.execute(insert(notes).values(body=body))
                # A long read in the unit sees the unit's own two rows.
                row = await uow.row(long_read)
                assert row is not None and row["long"] == LONG_ROWS and row["notes"] % 2 == 0
                mine = select(func.count()).select_from(notes).where(notes.c.body == body)
                assert await uow.value(mine) == 2

    async def reader() -> list[int]:
        seen = []
        for _ in range(rounds):
            async with unit_of_work(sessions, CLOCK, write=False) as uow:
                row = await uow.row(long_read)
                assert row is not None and row["long"] == LONG_ROWS
                seen.append(row["notes"])
        return seen

    done = await asyncio.gather(
        *(writer(number) for number in range(tasks)), *(reader() for _ in range(tasks))
    )
    for seen in done[tasks:]:
        assert all(notes_seen % 2 == 0 for notes_seen in seen)  # never half a unit's write
        assert seen == sorted(seen)  # each reader's snapshots move forward
    assert await _count_notes(engine) == tasks * rounds * 2
    assert {"sqlite-reader", "sqlite-connection"} <= probe.threads()


# What is a read.


async def test_a_long_with_select_read_leaves_the_loop_even_after_running_short(
    engine: AsyncEngine,
):
    """A `WITH … SELECT` is a read: on the loop only within its budget, however often it ran
    short before (a write that has run short runs on the loop to its end)."""
    sessions = session_factory(engine)
    counting = _counting_up_to(bindparam("rows"))

    async def count(rows: int) -> int:
        async with unit_of_work(sessions, CLOCK, write=False) as uow:
            return await uow.value(counting, {"rows": rows})

    for _ in range(6):
        assert await count(1) == 1
    rows = 1_000_000
    work = asyncio.create_task(count(rows))
    await asyncio.sleep(0)  # the statement starts
    assert await _ticks_while(work) > 1  # on the loop to its end, it would be one tick
    assert await work == rows


async def test_a_with_insert_is_a_write_and_keeps_the_units_earlier_writes(engine: AsyncEngine):
    """Were it taken for a read, SQLite would interrupt it at the loop's budget, and roll back
    the unit's whole transaction with it."""
    sessions = session_factory(engine)
    fill = (
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n"
        f" LIMIT {LONG_ROWS}) INSERT INTO notes (body) SELECT 'note ' || x FROM n"
    )
    async with unit_of_work(sessions, CLOCK) as uow:
        await uow.execute(insert(notes).values(body="mine"))
        await uow.session.execute(text(fill))
    assert await _count_notes(engine) == LONG_ROWS + 1


@pytest.mark.parametrize(
    ("sql", "reads"),
    [
        ("SELECT 1", True),
        ("  select 1", True),
        ("WITH n(x) AS (SELECT 1) SELECT x FROM n", True),
        ("with recursive n(x) as (select 1 union all select x + 1 from n) select x from n", True),
        ("WITH a AS (SELECT 1), b AS MATERIALIZED (SELECT ')') SELECT * FROM a, b", True),
        ('WITH "a(" AS (SELECT 1) /* ) DELETE */ SELECT 1', True),
        ("WITH n(x) AS (SELECT 1) INSERT INTO notes (id) SELECT x FROM n", False),
        ("WITH n AS (SELECT 1) UPDATE notes SET body = (SELECT 1)", False),
        ("WITH n AS (SELECT 1) DELETE FROM notes", False),
        ("INSERT INTO notes (body) SELECT 'x'", False),
        ("BEGIN IMMEDIATE", False),
        ("PRAGMA foreign_keys", False),
    ],
)
def test_a_statement_reads_when_it_or_its_with_clause_leads_to_a_select(sql: str, reads: bool):
    assert only_reads(sql) is reads


# What an engine learns.


async def test_what_one_engine_learns_about_a_statement_leaves_another_alone(
    engine: AsyncEngine, probe: Probe, tmp_path: Path
):
    """A read that overran on one engine goes to a thread at once there; another engine, with a
    database of its own, still tries it on the loop first."""
    long_read = select(literal_column(LONG_COUNT).label("long"))

    async def read(on: AsyncEngine) -> int:
        async with unit_of_work(session_factory(on), CLOCK, write=False) as uow:
            return await uow.value(long_read)

    for _ in range(2):  # each run overruns the loop's budget
        assert await read(engine) == LONG_ROWS
    probe.calls.clear()
    assert await read(engine) == LONG_ROWS
    assert probe.threads() == {"sqlite-reader"}  # learnt: straight to a reader thread

    other = await _engine(tmp_path / "other.db")
    try:
        probe.calls.clear()
        assert await read(other) == LONG_ROWS
        assert probe.threads() == {"loop", "sqlite-reader"}  # first on the loop, then off it
    finally:
        await other.dispose()

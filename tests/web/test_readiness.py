"""/readyz: 200 while every part is well, 503 naming the part that is not: the database, the
migrations, and where the process runs the jobs worker, the worker and the pending events."""

import asyncio
from datetime import timedelta
from pathlib import Path

from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import text

from bot.app import create_app
from bot.clock import FrozenClock
from bot.db.migrate import head_revision
from bot.keys import ENGINE, EVENT_PUMP, WORKER
from tests import databases
from tests.factories import Factory, create_item
from tests.waiting import until, until_set

STALL = 120.0  # READY_WORKER_STALL_SECONDS' default, past JOBS_POLL_SECONDS' 1 s
BACKLOG = 300.0  # READY_EVENT_BACKLOG_SECONDS' default


async def readiness(client: TestClient) -> tuple[int, dict]:
    response = await client.get("/readyz")
    return response.status, await response.json()


async def a_turn(app: web.Application, clock: FrozenClock) -> None:
    """Wake the worker and wait until it has begun a turn at the clock's time."""
    worker = app[WORKER]
    worker.wake()
    await until(lambda: worker.last_turn_at == clock.now(), "the worker to begin a turn")


async def test_ready_when_every_part_is_well(client: TestClient) -> None:
    assert await (await client.get("/healthz")).json() == {"status": "ok"}
    assert await readiness(client) == (200, {"status": "ready", "revision": head_revision()})


async def test_a_worker_that_keeps_turning_is_ready_however_long_it_idles(
    client: TestClient, app: web.Application, clock: FrozenClock
) -> None:
    clock.advance(timedelta(hours=1))
    await a_turn(app, clock)
    assert (await readiness(client))[0] == 200


async def test_not_ready_when_the_schema_is_behind(
    client: TestClient, app: web.Application
) -> None:
    async with app[ENGINE].begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    try:
        assert await readiness(client) == (
            503,
            {"error": "Not ready: migrations: at older, not at head."},
        )
    finally:
        async with app[ENGINE].begin() as conn:
            await conn.execute(
                text(f"UPDATE alembic_version SET version_num = '{head_revision()}'")
            )


async def test_not_ready_when_the_database_is_unreachable(
    db: str, make_settings, clock: FrozenClock, aiohttp_client, tmp_path: Path
) -> None:
    folder = tmp_path / "own"
    # SQLite: a file of the test's own, whose folder can go; PostgreSQL: the test's database.
    url = f"sqlite+aiosqlite:///{folder / 'app.db'}" if db.startswith("sqlite") else db
    client = await aiohttp_client(create_app(make_settings(url), clock=clock))
    async with databases.unreachable(url, client.app[ENGINE], folder):
        assert await readiness(client) == (503, {"error": "Not ready: database unreachable."})


async def test_not_ready_when_the_worker_stalls(
    client: TestClient, app: web.Application, clock: FrozenClock
) -> None:
    entered, release = asyncio.Event(), asyncio.Event()

    async def stuck() -> int:
        entered.set()
        await release.wait()
        return 0

    app[WORKER].add_pass(stuck, batch=1)
    app[WORKER].wake()
    await until_set(entered, "the worker to be stuck in its pass")
    clock.advance(timedelta(seconds=STALL + 2))
    assert await readiness(client) == (
        503,
        {"error": "Not ready: job worker stalled: no turn for 122 s (bound 121 s)."},
    )
    release.set()
    await a_turn(app, clock)
    assert (await readiness(client))[0] == 200


async def test_not_ready_when_pending_events_pile_up(
    client: TestClient, app: web.Application, clock: FrozenClock, factory: Factory
) -> None:
    async def failing(_uow: object, _events: object) -> None:
        raise RuntimeError("an observer that keeps failing")

    app[EVENT_PUMP].observe(failing)
    await create_item(client, await factory.member("Ada"))  # a pending event, now
    clock.advance(timedelta(seconds=BACKLOG - 1))
    await a_turn(app, clock)  # the worker turns, and fails on the event
    assert (await readiness(client))[0] == 200
    clock.advance(timedelta(seconds=2))
    await a_turn(app, clock)
    assert await readiness(client) == (
        503,
        {"error": "Not ready: event backlog: the oldest pending event waited 301 s (bound 300 s)."},
    )


async def test_a_process_without_a_worker_is_not_judged_on_background_work(
    db: str, make_settings, clock: FrozenClock, aiohttp_client, factory: Factory
) -> None:
    client = await aiohttp_client(create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock))
    await create_item(client, await factory.member("Ada"))
    clock.advance(timedelta(days=1))
    assert (await readiness(client))[0] == 200

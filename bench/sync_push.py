"""Changes made here pushed out, for each source (`python -m bench sync`): each round PATCHes
every linked item through the app's API (one change each, not timed), then a jobs worker runs
the push jobs those changes queued until none is pending (timed), beside a bare aiohttp client
sending the very requests the stand-in served in that round (`SyncSource.replayed`: Azure
DevOps' JSON Patches with their `test` on `/rev`, each rev brought up to date; Jira's read
before each write, the write and the read after; Planner's details read before each PATCH, the
PATCH with `If-Match` the twin's ETag) to twin items at the same local source, at
the worker's concurrency, round by round.

As in `deliveries`, the worker runs in this process, wired as the app wires it (the sync engine,
its connectors, `JOBS_CONCURRENCY` slots); the app's own process serves the API with no worker.
No hook calls back during a round (Azure DevOps refuses the project's token service hooks; no
Jira webhook is registered; Planner has none).
"""

import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import orjson
from sqlalchemy import delete, func, select

from bench.harness import ROUNDS, SECRET
from bench.sync_rig import (
    FULL,
    App,
    Standin,
    SyncSource,
    app,
    channel_name,
    control,
    link,
    standin,
    until_synced,
)
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Item, Job
from bot.db.uow import unit_of_work
from bot.events import ssrf
from bot.jobs.worker import Worker
from bot.settings import Settings
from bot.sync.address import source_http
from bot.sync.connectors import Connectors, register_all
from bot.sync.engine.runner import SyncEngine
from bot.sync_records.schemas import ItemSyncStatus

CHANGES = 1_000 if FULL else 200
EDITORS = 8  # connections the changes here are made on (not timed)


def title(source: SyncSource) -> str:
    return (
        f"{CHANGES:,} changes made here pushed to {source.name} ({ROUNDS} rounds): changes/s "
        "beside a bare aiohttp client sending the same requests to the same stand-in"
    )


def measure(source: SyncSource, kind: str) -> dict[str, Any]:
    with (
        standin(source) as there,
        app(kind, JOBS_POLL_SECONDS="0", **source.app_settings(there)) as running,
    ):
        return asyncio.run(_measure(source, running, there))


def report(source: SyncSource, kind: str, figures: dict[str, Any]) -> str:
    return (
        f"{kind:10} app {figures['app']:6.0f} changes/s  bare client {figures['bare']:6.0f}/s  "
        f"ratio {figures['ratio']:.0%} (goal ≥ 50 %; rounds {figures['low']:.0%}–"
        f"{figures['high']:.0%}: {', '.join(figures['rounds'])}), {figures['slots']} in flight; "
        f"requests per change: app {figures['requests']:.2f} ({figures['refused']} refused); "
        f"CPU per change: app "
        f"{figures['cpu_app']:.1f} ms, bare {figures['cpu_bare']:.1f} ms"
    )


async def _measure(source: SyncSource, running: App, there: Standin) -> dict[str, Any]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        DATABASE_URL=running.url,
        SECRET_KEY=SECRET,
        SYNC_ALLOWED_HOSTS="127.0.0.1",
        **source.app_settings(there),
    )
    engine = create_engine(running.url)
    sessions = session_factory(engine)
    channel = channel_name(0)
    apps, bares, requests, cpu_app, cpu_bare, refused = [], [], [], [], [], []
    try:
        async with aiohttp.ClientSession() as http, _worker(settings, sessions) as worker:
            await control(http, there, "POST", "/hooks", on=False)
            # The app's items in one area, the bare client's twins (made after the import) in
            # another: neither side's changes are news to the other.
            area, query = source.push_scope(there)
            mine = await control(http, there, "POST", "/seed", count=CHANGES, area=area)
            await _drop_other_jobs(sessions)
            project_id = await _linked(http, running, channel, source, there, worker, query)
            theirs = await control(http, there, "POST", "/seed", count=CHANGES, area="Bare")
            twin = dict(zip(mine, theirs, strict=True))
            items = await _items(sessions, project_id)
            for round_number in range(ROUNDS + 1):  # the first warms both sides up
                await control(http, there, "GET", "/served")
                await _change_here(http, running, channel, items, round_number)
                await _drop_other_jobs(sessions)
                cpu = time.process_time()
                pushed = await _app_round(worker, sessions, len(items))
                cpu_app.append((time.process_time() - cpu) / len(items))
                served = await control(http, there, "GET", "/served")
                cpu = time.process_time()
                bare = await _bare_round(
                    http, source, there, served, twin, settings.jobs_concurrency
                )
                cpu_bare.append((time.process_time() - cpu) / len(items))
                if round_number:
                    apps.append(pushed)
                    bares.append(bare)
                    requests.append(len(served) / len(items))
                    refused.append(sum(request["status"] >= 300 for request in served))
    finally:
        await engine.dispose()
    ratios = [a / b for a, b in zip(apps, bares, strict=True)]
    return {
        "app": statistics.median(apps),
        "bare": statistics.median(bares),
        "ratio": statistics.median(ratios),
        "low": min(ratios),
        "high": max(ratios),
        "rounds": [f"{a:.0f}/{b:.0f}" for a, b in zip(apps, bares, strict=True)],
        "slots": settings.jobs_concurrency,
        "requests": statistics.median(requests),
        "refused": sum(refused),  # the app's requests answered other than 2xx (a stale rev: 412)
        # This process's CPU time per change (the worker's, or the bare client's), warm-up
        # left out: what the machine's other load disturbs least.
        "cpu_app": statistics.median(cpu_app[1:]) * 1000,
        "cpu_bare": statistics.median(cpu_bare[1:]) * 1000,
    }


class _Worker:
    """The app's worker with only the sync engine's jobs, run while a round is timed."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self.worker.run_forever(poll=0.05))

    async def stop(self) -> None:
        assert self.task is not None
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


class _NoChannel:
    """The bench's worker runs pushes only: none pauses or comments, so nothing is told."""

    async def post(self, uow: Any, *, channel_id: str, said: Any) -> None:
        raise AssertionError("a push in the bench told a channel")

    async def tell(self, uow: Any, *, conversation_id: str, said: Any) -> None:
        raise AssertionError("a push in the bench told a thread")

    async def start(self, *, channel_id: str, said: Any) -> Any:
        raise AssertionError("a push in the bench started a thread")


@asynccontextmanager
async def _worker(settings: Settings, sessions: Any) -> AsyncIterator[_Worker]:
    allowed = ssrf.AllowList.parse(settings.sync_allowed_hosts)
    clock = SystemClock()
    async with source_http(allowed) as http:
        connectors = Connectors()
        register_all(
            connectors,
            http,
            allowed=allowed,
            clock=clock,
            authority=settings.entra_authority_url,
        )
        worker = Worker(sessions, clock, slots=settings.jobs_concurrency)
        SyncEngine(
            sessions,
            clock,
            connectors,
            secret_key=settings.secret(),
            public_url="",
            messenger=_NoChannel(),
        ).register(worker)
        yield _Worker(worker)


async def _linked(
    http: aiohttp.ClientSession,
    running: App,
    channel: str,
    source: SyncSource,
    there: Standin,
    worker: _Worker,
    query: str | None,
) -> str:
    """The project linked (polled once a day: no poll runs during a round), its import run."""
    project_id, _ = await link(
        http, running, channel, source, there, intervalSeconds=86_400, query=query
    )
    worker.start()
    try:
        await until_synced(http, running, channel, project_id)
    finally:
        await worker.stop()
    return project_id


async def _drop_other_jobs(sessions: Any) -> None:
    """The app's other jobs (the due-date sweep's row): this worker runs the sync's alone."""
    async with unit_of_work(sessions, SystemClock()) as uow:
        await uow.execute(delete(Job).where(Job.kind.not_like("sync.%")))


async def _items(sessions: Any, project_id: str) -> list[tuple[str, str]]:
    async with unit_of_work(sessions, SystemClock(), write=False) as uow:
        rows = await uow.rows(
            select(Item.id, Item.kind).where(Item.project_id == project_id).order_by(Item.id)
        )
    assert len(rows) == CHANGES, len(rows)
    return [(row["id"], row["kind"]) for row in rows]


async def _change_here(
    http: aiohttp.ClientSession,
    running: App,
    channel: str,
    items: list[tuple[str, str]],
    round_number: int,
) -> None:
    queue = list(items)
    headers = running.in_channel(channel)

    async def editor() -> None:
        while queue:
            item_id, kind = queue.pop()
            url = f"{running.base}/odata/{kind}s({item_id})"
            body = {"name": f"Changed here in round {round_number}: {item_id}"}
            async with http.patch(url, json=body, headers=headers) as response:
                assert response.status == 204, await response.text()

    await asyncio.gather(*(editor() for _ in range(EDITORS)))


async def _app_round(worker: _Worker, sessions: Any, count: int) -> float:
    started = time.perf_counter()
    worker.start()
    try:
        while await _pending(sessions):
            await asyncio.sleep(0.02)
        elapsed = time.perf_counter() - started
    finally:
        await worker.stop()
    return count / elapsed


async def _pending(sessions: Any) -> int:
    async with unit_of_work(sessions, SystemClock(), write=False) as uow:
        count = await uow.value(
            select(func.count())
            .select_from(Item)
            .where(Item.sync_status == ItemSyncStatus.PENDING.value)
        )
    return int(count or 0)


async def _bare_round(
    http: aiohttp.ClientSession,
    source: SyncSource,
    there: Standin,
    served: list[dict[str, Any]],
    twin: dict[str, str],
    concurrency: int,
) -> float:
    """The requests the stand-in served in the app's round, sent again by a bare client to
    the twins of the app's items; its rate is that of the writes among them."""
    revs = await control(http, there, "GET", "/revs")
    writes = sum(request["method"] == source.write for request in served)
    queue = list(served)

    async def sender(session: aiohttp.ClientSession) -> None:
        while queue:
            request = queue.pop(0)
            path, data, headers = source.replayed(request, twin, revs)
            async with session.request(
                request["method"],
                there.root + path,
                params=request["query"],
                data=data,
                headers=headers,
            ) as response:
                answer = await response.read()
                if answer:
                    orjson.loads(answer)
                assert response.status in source.answered, response.status

    started = time.perf_counter()
    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(sender(session) for _ in range(concurrency)))
    return writes / (time.perf_counter() - started)

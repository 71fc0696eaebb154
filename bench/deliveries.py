"""1,000 webhook deliveries to one loopback receiver: the jobs worker sending them (claim, sign,
send through the SSRF guard, record each try, settle each job) beside a bare aiohttp client
sending the same signed requests to the same receiver, in the same run, at the same
concurrency (the per-host cap), round by round (`python -m bench deliveries`).

The two sides alternate within each round, and every other round the bare client goes first, so
the machine's load (shared with other work) falls on both alike: each round's ratio compares
two runs a few seconds apart. Beside the rates, each side's CPU per delivery in this process
(`time.process_time`): the figure that load does not move, where the rates follow the machine's
mood.

The receiver is a bare aiohttp server in its own process that answers 200 at once. The app's
side runs in this process: the deliveries and their jobs are written as the engine writes them,
then a worker runs until every one is recorded.
"""

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from prometheus_client import CollectorRegistry

from bench.harness import ROUNDS, SECRET, free_port, scratch_database
from bot import outcomes, workspace
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.db.tables import EventDefinition, EventDelivery, Job
from bot.db.uow import unit_of_work
from bot.directory.schemas import MembershipType
from bot.directory.teams import upsert_team
from bot.events.definitions.secrets import new_secret
from bot.events.deliveries.policy import Outcome
from bot.events.deliveries.signing import headers as signed_headers
from bot.events.delivery import DELIVER, Deliverer
from bot.ids import new_id
from bot.jobs.worker import Worker
from bot.settings import Settings

DELIVERIES = 1_000
WARM_UP = 200
BODY = '{"eventName": "Pager", "triggerType": "ITEM_CREATED", "item": {"name": "Printer on fire"}}'


def title() -> str:
    return (
        f"{DELIVERIES:,} webhook deliveries to one loopback receiver ({ROUNDS} rounds): "
        f"deliveries/s beside a bare aiohttp client sending the same signed requests"
    )


def measure(kind: str) -> dict[str, Any]:
    port = free_port()
    receiver = subprocess.Popen(
        [sys.executable, "-m", "bench.bare_receiver", str(port)],
        stdout=subprocess.PIPE,
    )
    try:
        assert receiver.stdout is not None
        receiver.stdout.readline()  # "ready"
        with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
            return asyncio.run(_measure(url, f"http://127.0.0.1:{port}/hook"))
    finally:
        receiver.terminate()
        receiver.wait()


def report(kind: str, figures: dict[str, Any]) -> str:
    return (
        f"{kind:10} app {figures['app']:7.0f}/s  bare client {figures['bare']:7.0f}/s  "
        f"ratio {figures['ratio']:.0%} (spread {figures['low']:.0%}–{figures['high']:.0%}; "
        f"rounds {', '.join(figures['rounds'])}), {figures['concurrency']:.0f} in flight; "
        f"CPU per delivery app {figures['app_cpu_ms']:.2f} ms, bare {figures['bare_cpu_ms']:.2f} ms"
        f" (ratio {figures['cpu_ratio']:.0%}); load average {figures['load']}"
    )


async def _measure(url: str, target: str) -> dict[str, Any]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        DATABASE_URL=url,
        SECRET_KEY=SECRET,
        WEBHOOK_ALLOWED_HOSTS="127.0.0.1",
    )
    engine = create_engine(url)
    await migrate(engine)
    sessions = session_factory(engine)
    clock = SystemClock()
    definition_id = await _definition(sessions, clock, target)
    apps: list[_Side] = []
    bares: list[_Side] = []
    loads = [os.getloadavg()[0]]
    try:
        # A warm-up of each side first: connections opened, statements compiled.
        warm = await _deliveries(sessions, clock, definition_id, target, count=WARM_UP)
        await _app_round(sessions, clock, settings, warm)
        await _bare_round(warm, target, settings.webhook_per_host)
        for round_number in range(ROUNDS):
            ids = await _deliveries(sessions, clock, definition_id, target)
            app = _measured(_app_round(sessions, clock, settings, ids), len(ids))
            bare = _measured(_bare_round(ids, target, settings.webhook_per_host), len(ids))
            if round_number % 2:
                bares.append(await bare)
                apps.append(await app)
            else:
                apps.append(await app)
                bares.append(await bare)
            loads.append(os.getloadavg()[0])
    finally:
        await engine.dispose()
    ratios = [app.rate / bare.rate for app, bare in zip(apps, bares, strict=True)]
    app_cpu = statistics.median(app.cpu_ms for app in apps)
    bare_cpu = statistics.median(bare.cpu_ms for bare in bares)
    return {
        "app": statistics.median(app.rate for app in apps),
        "bare": statistics.median(bare.rate for bare in bares),
        "ratio": statistics.median(ratios),
        "low": min(ratios),
        "high": max(ratios),
        "concurrency": settings.webhook_per_host,
        "rounds": [
            f"{app.rate:.0f}/{bare.rate:.0f}" for app, bare in zip(apps, bares, strict=True)
        ],
        "app_cpu_ms": app_cpu,
        "bare_cpu_ms": bare_cpu,
        "cpu_ratio": bare_cpu / app_cpu,
        "load": f"{min(loads):.1f}–{max(loads):.1f}",
    }


@dataclass(frozen=True)
class _Side:
    rate: float  # deliveries (requests) per second
    cpu_ms: float  # this process's CPU time per delivery


async def _measured(run: Awaitable[float], count: int) -> _Side:
    """One side's round: its rate, and the CPU this process spent on it per delivery."""
    started = time.process_time()
    rate = await run
    return _Side(rate, (time.process_time() - started) * 1000 / count)


async def _definition(sessions, clock, target: str) -> str:  # noqa: ANN001
    async with unit_of_work(sessions, clock) as uow:
        await upsert_team(uow, team_id="19:bench", name="Bench", tenant_id="t", group_id=None)
        channel = await workspace.add_channel(
            uow,
            team_id="19:bench",
            channel_id="19:bench-hooks",
            name="Hooks",
            membership_type=MembershipType.STANDARD,
        )
        now = clock.now()
        definition = EventDefinition(
            id=new_id(),
            channel_id=channel.id,
            kind="bug",
            name="Bench",
            enabled=True,
            trigger="ITEM_CREATED",
            conditions_op="and",
            conditions=[],
            action_type="HTTP",
            action={"url": target, "method": "POST", "headers": [], "body": BODY},
            secret=new_secret(),
            previous_secret=None,
            previous_secret_until=None,
            disabled_reason=None,
            disabled_announced_at=None,
            created_by=None,
            created_at=now,
            updated_at=now,
        )
        uow.add(definition)
    return definition.id


async def _deliveries(  # noqa: ANN001
    sessions, clock, definition_id: str, target: str, *, count: int = DELIVERIES
) -> list[tuple[str, str]]:
    """`count` pending deliveries and their jobs, as the engine writes them; (id, webhook id)."""
    made = []
    async with unit_of_work(sessions, clock) as uow:
        definition = await uow.get(EventDefinition, definition_id)
        assert definition is not None
        now = clock.now()
        for _ in range(count):
            delivery = EventDelivery(
                id=new_id(),
                definition_id=definition_id,
                channel_id=definition.channel_id,
                event_id=new_id(),
                item_id=new_id(),
                trigger="ITEM_CREATED",
                webhook_id=f"msg_{new_id()}",
                request={"url": target, "method": "POST", "headers": [], "body": BODY},
                state="pending",
                attempts=0,
                created_at=now,
                last_attempt_at=None,
                finished_at=None,
            )
            job = Job(
                id=new_id(),
                kind=DELIVER.name,
                payload={"deliveryId": delivery.id},
                state="queued",
                run_at=now,
                attempts=0,
                max_attempts=8,
                created_at=now,
            )
            uow.add(delivery, job)
            made.append((delivery.id, delivery.webhook_id))
    return made


class _NothingSaid:
    """The bench's receivers answer 2xx: no rule is switched off, so nothing is said."""

    async def post(self, uow, *, channel_id: str, said: object) -> None:  # noqa: ANN001
        raise AssertionError(f"the bench switched a rule off: {said}")


async def _app_round(sessions, clock, settings: Settings, ids: list[tuple[str, str]]) -> float:  # noqa: ANN001
    worker = Worker(sessions, clock, slots=settings.jobs_concurrency)
    # The tries recorded, counted as the app counts them for /metrics: the round's end is
    # watched without a query (a count of pending rows every few milliseconds cost the app's
    # side its CPU and, on SQLite, its event loop).
    registry = CollectorRegistry()
    async with Deliverer(sessions, clock, settings, _NothingSaid()).opened() as deliverer:
        deliverer.register(worker)
        started = time.perf_counter()
        with outcomes.bound(outcomes.Outcomes(registry)):
            task = asyncio.create_task(worker.run_forever(poll=0.05))
        try:
            while _recorded(registry) < len(ids):
                await asyncio.sleep(0.01)
            elapsed = time.perf_counter() - started
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return len(ids) / elapsed


def _recorded(registry: CollectorRegistry) -> float:
    """Tries recorded as succeeded (the bench's receiver answers 200)."""
    value = registry.get_sample_value(
        "tracker_webhook_deliveries_total", {"outcome": Outcome.SUCCEEDED.value}
    )
    return value or 0.0


async def _bare_round(ids: list[tuple[str, str]], target: str, concurrency: int) -> float:
    """The same signed requests, sent by a bare client `concurrency` at a time."""
    secret = new_secret()
    queue = list(ids)

    async def sender(http: aiohttp.ClientSession) -> None:
        while queue:
            _, webhook_id = queue.pop()
            headers = signed_headers(
                [],
                secrets=[secret],
                webhook_id=webhook_id,
                trigger="ITEM_CREATED",
                at=SystemClock().now(),
                body=BODY,
            )
            async with http.post(target, data=BODY.encode(), headers=headers) as response:
                await response.read()
                assert response.status == 200

    started = time.perf_counter()
    async with aiohttp.ClientSession() as http:
        await asyncio.gather(*(sender(http) for _ in range(concurrency)))
    return len(ids) / (time.perf_counter() - started)

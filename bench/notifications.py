"""Notifications at the pace Teams allows, and how soon one reaches Teams
(`python -m bench notifications`). Issue 18's bars:

- 1,000 notifications into 100 existing threads (10 per thread, digests off) sent at ≥ 90 % of
  the rate Teams' limits allow for that mix (here the tenant's 50 per second binds: a thread's
  10 fit its own windows). The replies are queued as the notifier's jobs in one transaction;
  the figure is the limits' ideal schedule for the mix (computed, same limits) against the time
  the app's worker took from the first reply's arrival at a local connector to the last.
- A bug created in a channel with a "created" Notification rule on, from the POST's answer to
  its thread's root card at the connector: p95 ≤ 1 s with nothing holding it (digest window 0,
  coalescing window 0), created slowly enough that the channel's own limits never bind. Beside
  it, the same run's floor: a bare POST to the same connector.

The app runs as its own process (`python app.py`) with its worker, as in production; the bench
seeds the team, channel, member and the channel's conversation reference (pointing at the
recording connector) as `bench.thread_refresh` does.
"""

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, web
from sqlalchemy import update

from bench.harness import environment, free_port, scratch_database, server
from bench.thread_refresh import CHANNEL, TEAM, seed, start_threads
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Channel
from bot.db.uow import unit_of_work
from bot.ids import new_id
from bot.teams.outbound import notifier
from bot.teams.outbound.send_budget import TENANT_LIMITS, THREAD_LIMITS

THREADS = 100
PER_THREAD = 10
CREATED = 50
# Seconds between two bugs created: each starts a thread in the channel's own conversation,
# whose limits (8 per 2 s, 60 per 30 s) would hold faster creations ("no limit applies").
SPACING = 0.6
GOAL_SHARE = 0.9
BUDGET_MS = 1000


class Connector:
    """Records when each post arrives: replies by thread, new threads by their card's title."""

    def __init__(self) -> None:
        self.replies: list[float] = []
        self.expected_replies = 0
        self.all_replied: asyncio.Future[None] | None = None
        self.waiting: dict[str, asyncio.Future[float]] = {}

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v3/conversations", self._new_thread)
        app.router.add_post("/v3/conversations/{conversation}/activities/{activity}", self._reply)
        app.router.add_post("/v3/conversations/{conversation}/activities", self._reply)
        return app

    async def _reply(self, request: web.Request) -> web.Response:
        await request.read()
        self.replies.append(time.perf_counter())
        done = self.all_replied
        if done is not None and not done.done() and len(self.replies) >= self.expected_replies:
            done.set_result(None)
        return web.json_response({"id": new_id()[-13:]})

    async def _new_thread(self, request: web.Request) -> web.Response:
        body = await request.json()
        arrived = time.perf_counter()
        title = body["activity"]["attachments"][0]["content"]["title"]
        future = self.waiting.pop(title, None)
        if future is not None and not future.done():
            future.set_result(arrived)
        message = new_id()[-13:]
        return web.json_response({"id": f"{CHANNEL};messageid={message}", "activityId": message})


def ideal_seconds(threads: int, per_thread: int) -> float:
    """From the first send to the last when every send goes as early as the limits allow, the
    threads' sends interleaved (as queued)."""
    sent: dict[str, list[float]] = {}
    tenant: list[float] = []
    last = 0.0
    for round_ in range(per_thread):
        for thread in range(threads):
            at = last if round_ or thread else 0.0
            mine = sent.setdefault(str(thread), [])
            for history, limits in ((mine, THREAD_LIMITS), (tenant, TENANT_LIMITS)):
                for count, window in limits:
                    if len(history) >= count:
                        at = max(at, history[-count] + window)
            mine.append(at)
            tenant.append(at)
            last = at
    return last


async def _digests_off(url: str) -> None:
    engine = create_engine(url)
    async with unit_of_work(session_factory(engine), SystemClock()) as uow:
        await uow.execute(
            update(Channel).where(Channel.teams_id == CHANNEL).values(digest_window_seconds=0)
        )
    await engine.dispose()


async def _queue_replies(url: str, roots: list[str]) -> None:
    engine = create_engine(url)
    async with unit_of_work(session_factory(engine), SystemClock()) as uow:
        for n in range(PER_THREAD):
            for root in roots:
                await notifier.queue_reply(
                    uow,
                    conversation_id=f"{CHANNEL};messageid={root}",
                    activity=notifier.message(text=f"Change {n}: Ada moved it to Done"),
                )
    await engine.dispose()


async def _drive(url: str, base: str, secret: str, connector: Connector, port: int) -> dict:
    runner = web.AppRunner(connector.app())
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    headers = {
        "Cookie": f"graphNodeCookie={secret}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": CHANNEL,
    }
    try:
        async with ClientSession() as http:
            ids = []
            for n in range(THREADS):
                async with http.post(
                    f"{base}/odata/bugs", json={"name": f"Threaded {n}"}, headers=headers
                ) as answer:
                    assert answer.status == 201, await answer.text()
                    ids.append((await answer.json())["_id"])
            roots = await start_threads(url, ids, base)
            connector.expected_replies = THREADS * PER_THREAD
            connector.all_replied = asyncio.get_running_loop().create_future()
            await _queue_replies(url, roots)
            await asyncio.wait_for(connector.all_replied, 300)
            sent_seconds = connector.replies[-1] - connector.replies[0]

            rule = {
                "eventName": "Bug created",
                "entityType": "bug",
                "triggerType": "ITEM_CREATED",
                "enable": True,
                "conditionsOps": "and",
                "conditions": [],
                "actionType": "Notification",
                "action": {},
            }
            async with http.post(
                f"{base}/odata/eventDefinitions", json=rule, headers=headers
            ) as answer:
                assert answer.status == 201, await answer.text()
            floor = await _bare_posts(http, port)

            async def create(n: int) -> float:
                arrived = asyncio.get_running_loop().create_future()
                body = {"name": f"Notified {n}"}
                async with http.post(f"{base}/odata/bugs", json=body, headers=headers) as answer:
                    assert answer.status == 201, await answer.text()
                    number = (await answer.json())["internalId"]
                    committed = time.perf_counter()
                connector.waiting[f"Bug #{number}: Notified {n}"] = arrived
                return (await asyncio.wait_for(arrived, 30) - committed) * 1000

            tasks = []
            for n in range(CREATED):
                tasks.append(asyncio.create_task(create(n)))
                await asyncio.sleep(SPACING)
            latencies = sorted(await asyncio.gather(*tasks))
    finally:
        await runner.cleanup()
    ideal = ideal_seconds(THREADS, PER_THREAD)
    return {
        "sent_seconds": sent_seconds,
        "ideal_seconds": ideal,
        "share": ideal / sent_seconds,
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * len(latencies)) - 1],
        "bare_post_ms": floor,
    }


async def _bare_posts(http: ClientSession, port: int) -> float:
    """The median of 50 bare POSTs of a card-sized body to the connector, in ms."""
    body = {"activity": {"attachments": [{"content": {"title": "bare", "text": "x" * 1500}}]}}
    times = []
    for _ in range(50):
        started = time.perf_counter()
        async with http.post(f"http://127.0.0.1:{port}/v3/conversations", json=body) as answer:
            await answer.read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def measure(kind: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        connector_port, port = free_port(), free_port()
        secret = asyncio.run(seed(url, f"http://127.0.0.1:{connector_port}"))
        asyncio.run(_digests_off(url))
        env = environment(
            url, DATA_DIR=folder, SEED_DEMO="false", PORT=str(port), THREAD_COALESCE_SECONDS="0"
        )
        with server([sys.executable, "app.py"], env, port) as running:
            return asyncio.run(_drive(url, running.base, secret, Connector(), connector_port))


def title() -> str:
    return (
        f"Notifications: {THREADS * PER_THREAD:,} replies into {THREADS} threads against the "
        f"limits' ideal schedule (goal ≥ {GOAL_SHARE:.0%}); a created bug's root card at the "
        f"connector, {CREATED} bugs one every {SPACING * 1000:.0f} ms (goal p95 ≤ {BUDGET_MS} ms)"
    )


def report(kind: str, figures: dict[str, Any]) -> str:
    rate = "met" if figures["share"] >= GOAL_SHARE else "NOT met"
    latency = "met" if figures["p95_ms"] <= BUDGET_MS else "NOT met"
    return (
        f"  {kind:10} sent in {figures['sent_seconds']:5.1f} s "
        f"(ideal {figures['ideal_seconds']:.1f} s): {figures['share']:.0%} of the allowed rate "
        f"({rate});  root card p50 "
        f"{figures['p50_ms']:.0f} ms p95 {figures['p95_ms']:.0f} ms ({latency}); floor: a bare "
        f"POST {figures['bare_post_ms']:.1f} ms"
    )

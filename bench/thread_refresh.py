"""A lone change to a discussed bug, from the PATCH's answer until the root card's update reaches
a local recording connector, with the app's worker running as it does in production
(`python -m bench thread`). Issue 16's bar: within the coalescing window plus 500 ms, p95 over
100 changes. Beside it, the same run's floor: the window plus a bare PUT to the same connector.

The app runs as its own process (`python app.py`); the bench seeds the channel, its members and
its conversation reference (pointing at the recording connector), makes DISCUSSED bugs over the
API and starts their threads in the database, then changes one bug every SPACING seconds, each
bug once: every change is a lone change, while other bugs' refreshes are in flight.
"""

import asyncio
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, web
from sqlalchemy import select

from bench.harness import environment, free_port, scratch_database, server
from bot import workspace
from bot.auth import service as auth
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.db.tables import Channel, DiscussionMessage, ItemThread
from bot.db.uow import unit_of_work
from bot.directory.schemas import MembershipType
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, upsert_user
from bot.discussions.heads import current_root
from bot.ids import new_id
from bot.teams.outbound import conversation_references
from bot.teams.outbound.sayings import description_of

CHANGES = 100
DISCUSSED = CHANGES
SPACING = 0.2  # seconds between two changes (of two different bugs)
WINDOW = 2.0  # THREAD_COALESCE_SECONDS's default
BUDGET_MS = WINDOW * 1000 + 500
TEAM = "19:bench-team@thread.tacv2"
CHANNEL = "19:bench-bugs@thread.tacv2"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"


class Connector:
    """Records when each root card's update arrives, by the root's message id."""

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[float]] = {}

    def app(self) -> web.Application:
        app = web.Application()
        activity = "/v3/conversations/{conversation}/activities/{activity}"
        app.router.add_put(activity, self._update)
        app.router.add_post(activity, self._reply)
        return app

    async def _update(self, request: web.Request) -> web.Response:
        await request.read()
        arrived = time.perf_counter()
        future = self.waiting.pop(request.match_info["activity"], None)
        if future is not None and not future.done():
            future.set_result(arrived)
        return web.json_response({"id": request.match_info["activity"]})

    async def _reply(self, request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"id": new_id()[-13:]})


async def seed(url: str, connector_url: str) -> str:
    """The team, its channel, a member and the channel's conversation reference; a session."""
    engine = create_engine(url)
    await migrate(engine)
    sessions = session_factory(engine)
    async with unit_of_work(sessions, SystemClock()) as uow:
        await upsert_team(uow, team_id=TEAM, name="Bench", tenant_id=TENANT, group_id=None)
    async with unit_of_work(sessions, SystemClock()) as uow:
        channel = await workspace.add_channel(
            uow,
            team_id=TEAM,
            channel_id=CHANNEL,
            name="Bugs",
            membership_type=MembershipType.STANDARD,
        )
        user = await upsert_user(
            uow,
            source_id="0a0a0a0a-0000-4000-8000-0000000000a1",
            username="ada@contoso.test",
            display_name="Ada Lovelace",
            email="ada@contoso.test",
        )
    async with unit_of_work(sessions, SystemClock()) as uow:
        await add_member(uow, team_id=TEAM, user_ref=user.id)
        reference = {
            "bot": {"id": "28:bench-bot", "name": "Tracker"},
            "conversation": {
                "id": CHANNEL,
                "isGroup": True,
                "conversationType": "channel",
                "tenantId": TENANT,
            },
            "channelId": "msteams",
            "serviceUrl": connector_url,
        }
        await conversation_references.save(uow, reference=reference, channel_ref=channel.id)
        secret = (await auth.issue_session(uow, user_id=user.id, ttl=timedelta(days=1))).secret
    await engine.dispose()
    return secret


async def start_threads(url: str, item_ids: list[str], public_url: str) -> list[str]:
    """Each bug's thread, started as starting a discussion leaves it; the roots' ids."""
    engine = create_engine(url)
    roots = []
    async with unit_of_work(session_factory(engine), SystemClock()) as uow:
        channel_id = await uow.value(select(Channel.id).where(Channel.teams_id == CHANNEL))
        now = uow.clock.now()
        for item_id in item_ids:
            root = new_id()[-13:]
            roots.append(root)
            head = await current_root(uow, item_id=item_id)
            assert head is not None
            uow.add(
                ItemThread(
                    item_id=item_id,
                    channel_id=channel_id,
                    conversation_id=f"{CHANNEL};messageid={root}",
                    root_message_id=root,
                    started_by=None,
                    started_at=now,
                ),
                DiscussionMessage(
                    id=new_id(),
                    item_id=item_id,
                    message_id=root,
                    reply_to_id=None,
                    author_kind="application",
                    author_id=None,
                    author_user_id=None,
                    author_name="Tracker",
                    body="",
                    card=description_of(head, public_url=public_url),
                    mentions=[],
                    created_at=now,
                    modified_at=now,
                    edited_at=None,
                    deleted_at=None,
                ),
            )
    await engine.dispose()
    return roots


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
            for n in range(DISCUSSED):
                body = {"name": f"Bug {n}"}
                async with http.post(f"{base}/odata/bugs", json=body, headers=headers) as answer:
                    assert answer.status == 201, await answer.text()
                    ids.append((await answer.json())["_id"])
            roots = await start_threads(url, ids, base)
            floor = await _bare_puts(http, port)

            async def change(item_id: str, root: str) -> float:
                arrived = asyncio.get_running_loop().create_future()
                connector.waiting[root] = arrived
                patch = {"status": "In Progress"}
                path = f"{base}/odata/bugs({item_id})"
                async with http.patch(path, json=patch, headers=headers) as answer:
                    assert answer.status == 204, await answer.text()
                committed = time.perf_counter()
                return (await asyncio.wait_for(arrived, 30) - committed) * 1000

            tasks = []
            for item_id, root in zip(ids, roots, strict=True):
                tasks.append(asyncio.create_task(change(item_id, root)))
                await asyncio.sleep(SPACING)
            latencies = sorted(await asyncio.gather(*tasks))
    finally:
        await runner.cleanup()
    return {
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * len(latencies)) - 1],
        "max_ms": latencies[-1],
        "bare_put_ms": floor,
    }


async def _bare_puts(http: ClientSession, port: int) -> float:
    """The median of 50 bare PUTs of a card-sized body to the connector, in ms."""
    body = {"type": "message", "attachments": [{"content": {"text": "x" * 1500}}]}
    times = []
    for _ in range(50):
        started = time.perf_counter()
        path = f"http://127.0.0.1:{port}/v3/conversations/bare/activities/bare"
        async with http.put(path, json=body) as answer:
            await answer.read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def measure(kind: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        connector_port, port = free_port(), free_port()
        secret = asyncio.run(seed(url, f"http://127.0.0.1:{connector_port}"))
        env = environment(
            url, DATA_DIR=folder, SEED_DEMO="false", PORT=str(port), THREAD_COALESCE_SECONDS="2"
        )
        with server([sys.executable, "app.py"], env, port) as running:
            return asyncio.run(_drive(url, running.base, secret, Connector(), connector_port))


def title() -> str:
    return (
        f"A lone change to a discussed bug → its root card's update at the connector "
        f"({CHANGES} changes of {DISCUSSED} bugs, one every {SPACING * 1000:.0f} ms; "
        f"window {WINDOW:.0f} s; budget {BUDGET_MS:.0f} ms)"
    )


def report(kind: str, figures: dict[str, Any]) -> str:
    verdict = "within" if figures["p95_ms"] <= BUDGET_MS else "OVER"
    return (
        f"  {kind:10} p50 {figures['p50_ms']:6.0f} ms  p95 {figures['p95_ms']:6.0f} ms  "
        f"max {figures['max_ms']:6.0f} ms  ({verdict} budget)  "
        f"floor: the window + a bare PUT, same run ({figures['bare_put_ms']:.1f} ms)"
    )

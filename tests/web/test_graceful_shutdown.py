"""SIGTERM under load: `python app.py` stops accepting, finishes the requests and the webhook
deliveries in flight, gives back the jobs it could not finish, and exits 0; every request it
acknowledged is stored, and no job is left leased."""

import asyncio
import json
import signal
import sys
from pathlib import Path

import aiohttp
from aiohttp import web
from sqlalchemy import select

from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Item, Job
from bot.db.uow import unit_of_work
from tests.conftest import SECRET
from tests.docs.test_guide_walkthrough import (
    ROOT,
    free_port,
    fresh_environment,
    launch,
    wait_until_ready,
)
from tests.waiting import PATIENCE, until, until_set

SHUTDOWN_SECONDS = 8


class Receiving:
    """What the slow receiver saw: the webhook-ids it began to receive and those it answered;
    it answers none before `answer` is set, and sets `arrived` at the first."""

    def __init__(self) -> None:
        self.begun: list[str] = []
        self.answered: list[str] = []
        self.arrived = asyncio.Event()
        self.answer = asyncio.Event()


async def slow_receiver() -> tuple[web.AppRunner, str, Receiving]:
    """A webhook receiver that answers only when the test lets it: deliveries stay in flight."""
    seen = Receiving()

    async def receive(request: web.Request) -> web.Response:
        await request.read()
        seen.begun.append(request.headers["webhook-id"])
        seen.arrived.set()
        await seen.answer.wait()
        seen.answered.append(request.headers["webhook-id"])
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, f"http://127.0.0.1:{port}/hook", seen


async def demo_headers(workdir: Path, env: dict[str, str]) -> dict[str, str]:
    """A session of the demo's first user, as the start banner says to get one: the admin CLI."""
    cli = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "admin",
        "demo",
        cwd=workdir,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
    )
    output, _ = await cli.communicate()
    assert cli.returncode == 0, output
    demo = json.loads(output)
    return {
        "Cookie": f"graphNodeCookie={demo['cookie']}",
        "x-svc-teamid": demo["teamId"],
        "x-svc-channelId": demo["channelId"],
    }


async def test_sigterm_finishes_what_was_acknowledged_and_leaves_no_job_leased(
    db: str, tmp_path: Path
) -> None:
    port = free_port()
    env = fresh_environment(tmp_path, port)
    env.update(
        DATABASE_URL=db,
        SECRET_KEY=SECRET,
        SEED_DEMO="true",
        SHUTDOWN_SECONDS=str(SHUTDOWN_SECONDS),
        WEBHOOK_ALLOWED_HOSTS="127.0.0.1",
    )
    receiver, hook_url, seen = await slow_receiver()
    server, log = launch(tmp_path, env)
    base = f"http://127.0.0.1:{port}"
    try:
        await asyncio.to_thread(wait_until_ready, base, server, log)
        headers = await demo_headers(tmp_path, env)
        async with aiohttp.ClientSession(headers=headers) as http:
            rule = {
                "eventName": "Every new bug",
                "entityType": "bug",
                "triggerType": "ITEM_CREATED",
                "enable": True,
                "conditionsOps": "and",
                "conditions": [],
                "actionType": "HTTP",
                "action": {"url": hook_url, "method": "POST", "headers": [], "body": ""},
            }
            async with http.post(f"{base}/odata/eventDefinitions", json=rule) as answer:
                assert answer.status == 201, await answer.text()

            acknowledged: list[str] = []

            async def create(n: int) -> None:
                try:
                    async with http.post(
                        f"{base}/odata/bugs", json={"name": f"Load {n}"}
                    ) as answer:
                        if answer.status == 201:
                            acknowledged.append((await answer.json())["_id"])
                except aiohttp.ClientError:
                    pass  # refused once the server stopped accepting: never acknowledged

            async def load() -> None:
                await asyncio.gather(*(create(n) for n in range(120)))

            writers = asyncio.create_task(load())
            # Deliveries in flight, requests still arriving.
            await until_set(seen.arrived, "a delivery to reach the receiver")
            server.send_signal(signal.SIGTERM)
            # The receiver answers once the server says it is shutting down: the deliveries it
            # holds were in flight then.
            await until(lambda: "shutting down" in log.read_text(), "the server to shut down")
            seen.answer.set()
            await writers
            # Bounded only against a hang; the app's own bound is SHUTDOWN_SECONDS.
            code = await asyncio.to_thread(server.wait, PATIENCE)
    finally:
        if server.poll() is None:
            server.kill()
        await receiver.cleanup()

    assert code == 0, log.read_text()
    assert acknowledged  # the load did reach the app before the signal
    engine = create_engine(db)
    try:
        async with unit_of_work(session_factory(engine), SystemClock(), write=False) as uow:
            stored = set(await uow.values(select(Item.id)))
            leased = await uow.rows(
                select(Job.id, Job.kind, Job.attempts, Job.lease_until, Job.payload).where(
                    Job.state == "queued", Job.lease_owner.is_not(None)
                )
            )
    finally:
        await engine.dispose()
    assert set(acknowledged) <= stored
    assert leased == [], log.read_text()[-4000:]
    # Deliveries in flight finished, not cut off.
    assert seen.begun and set(seen.begun) <= set(seen.answered)

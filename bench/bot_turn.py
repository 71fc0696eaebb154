"""A chat command turn: `bugs/my` with 10k bugs in the channel, from the activity posted to
/api/messages until the reply reaches a local connector; beside the bare aiohttp ceiling."""

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from aiohttp import ClientSession, web
from sqlalchemy import text

from bench.harness import (
    Load,
    environment,
    free_port,
    run_cli,
    run_module,
    scratch_database,
    server,
    wrk,
)
from bot import demo
from bot.db.engine import create_engine

BUGS = 10_000
MINE = 1_000  # of them assigned to the caller
SEQUENTIAL_TURNS = 300
CONCURRENCY = 8
SUSTAINED_SECONDS = 5.0


class Connector:
    """Records when each reply arrives, by the activity it answers."""

    def __init__(self) -> None:
        self.waiting: dict[str, asyncio.Future[float]] = {}

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v3/conversations/{conversation}/activities/{activity}", self._reply)
        return app

    async def _reply(self, request: web.Request) -> web.Response:
        await request.read()
        arrived = time.perf_counter()
        future = self.waiting.pop(request.match_info["activity"], None)
        if future is not None and not future.done():
            future.set_result(arrived)
        return web.json_response({"id": "1"})


def _activity(service_url: str, number: int) -> dict[str, Any]:
    """What the Emulator sends (the app runs without an app id): the demo user and channel."""
    return {
        "type": "message",
        "id": f"turn-{number}",
        "channelId": "emulator",
        "serviceUrl": service_url,
        "from": {"id": "emulator-user", "name": "User"},
        "recipient": {"id": "emulator-bot", "name": "Bot"},
        "conversation": {"id": "bench-conversation"},
        "text": "bugs/my",
    }


async def _turn(http: ClientSession, base: str, connector: Connector, url: str, n: int) -> float:
    future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    connector.waiting[f"turn-{n}"] = future
    started = time.perf_counter()
    async with http.post(f"{base}/api/messages", json=_activity(url, n)) as response:
        assert response.status == 200, await response.text()
    return (await asyncio.wait_for(future, 10)) - started


def _cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _drive(base: str, pid: int) -> tuple[float, float, float]:
    """The p50 of sequential turns (ms) and the server's CPU time per turn (ms), then turns per
    second with CONCURRENCY clients. The CPU time is what others' load on a shared machine
    disturbs least (the wall-clock p50 waits for the cores too)."""
    connector = Connector()
    runner = web.AppRunner(connector.app())
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    url = f"http://127.0.0.1:{port}"
    counter = iter(range(10**9))
    try:
        async with ClientSession() as http:
            for _ in range(30):  # warm up: caches, connections
                await _turn(http, base, connector, url, next(counter))
            cpu_before = _cpu_seconds(pid)
            times = [
                await _turn(http, base, connector, url, next(counter))
                for _ in range(SEQUENTIAL_TURNS)
            ]
            cpu_ms = (_cpu_seconds(pid) - cpu_before) * 1000 / SEQUENTIAL_TURNS
            done = 0
            deadline = time.perf_counter() + SUSTAINED_SECONDS

            async def client() -> None:
                nonlocal done
                while time.perf_counter() < deadline:
                    await _turn(http, base, connector, url, next(counter))
                    done += 1

            started = time.perf_counter()
            await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
            rate = done / (time.perf_counter() - started)
    finally:
        await runner.cleanup()
    return statistics.median(times) * 1000, cpu_ms, rate


async def _assign_some(url: str) -> None:
    """MINE of the bugs assigned to the demo user whom the Emulator speaks as."""
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.execute(
            text(
                # With the item's copies, as `bot.items.assignees.set_assignees` writes them.
                "INSERT INTO item_assignees "
                "(item_id, user_id, position, kind, channel_id, created_at) "
                "SELECT items.id, users.id, 0, items.kind, items.channel_id, items.created_at "
                "FROM items, users "
                "WHERE users.source_id = :user AND NOT EXISTS (SELECT 1 FROM item_assignees a "
                "WHERE a.item_id = items.id AND a.user_id = users.id) "
                "ORDER BY items.id LIMIT :mine"
            ),
            {"user": demo.USERS[0][0], "mine": MINE},
        )
    await engine.dispose()


def measure(kind: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        info = json.loads(run_cli(env, "admin", "demo"))
        run_module(env, "bench.items_data", url, info["channelId"], str(BUGS))
        asyncio.run(_assign_some(url))
        port = free_port()
        with server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port) as running:
            p50, cpu_ms, rate = asyncio.run(_drive(running.base, running.pid))
        body_file = Path(folder) / "body.json"
        body_file.write_bytes(b"{}")
        port = free_port()
        command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
        with server(command, env, port) as running:
            bare: Load = wrk(f"{running.base}/api/messages", headers={}, connections=CONCURRENCY)
        return {"p50_ms": p50, "cpu_ms": cpu_ms, "turns_per_second": rate, "bare": bare}


def report(kind: str, figures: dict[str, Any]) -> str:
    bare: Load = figures["bare"]
    return (
        f"{'':12} {kind:10} {figures['p50_ms']:7.1f} {figures['cpu_ms']:7.1f} "
        f"{figures['turns_per_second']:8.0f} "
        f"{bare.p50_ms:8.2f} {bare.requests_per_second:10.0f}"
    )

"""Commit → webhook received: one app process, an idle receiver on loopback, a rule that fires
on every created bug. Each bug is created alone; the time runs from sending the create (its
commit comes before the answer) to the receiver getting the signed request. Beside it, the
machine's own floor from the same run: a bare aiohttp client posting to the same receiver."""

import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
from aiohttp import web

from bench.harness import environment, free_port, run_cli, scratch_database, server

CHANGES = 100
PAUSE_S = 0.05  # between creates: the receiver and the worker are idle when each one starts
TEAM, CHANNEL = "19:demo-team@thread.tacv2", "19:demo-bugs@thread.tacv2"


def title() -> str:
    return (
        f"Commit → webhook received ({CHANGES} bugs created one at a time, a rule firing on each,"
        " one app process), beside a bare aiohttp POST to the same receiver"
    )


class Receiver:
    """An aiohttp server on its own thread and loop: when each request arrived, by its body."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.text()
        self.arrivals[_key_of(body)] = time.perf_counter()
        return web.Response()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/{what}", self._handle)
        runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(runner.setup())
        self._loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
        self._ready.set()
        self._loop.run_forever()

    @contextmanager
    def running(self) -> Iterator["Receiver"]:
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        self._ready.wait(10)
        try:
            yield self
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            thread.join(10)

    async def until(self, key: str, timeout: float = 10) -> float:
        deadline = time.perf_counter() + timeout
        while key not in self.arrivals:
            if time.perf_counter() > deadline:
                raise RuntimeError(f"no webhook for {key} within {timeout} s")
            await asyncio.sleep(0.0005)
        return self.arrivals[key]


def _key_of(body: str) -> str:
    try:
        payload = json.loads(body)
    except ValueError:
        return body
    return str(payload.get("item", {}).get("name") or payload.get("key") or body)


def measure(kind: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(
            url, DATA_DIR=folder, SEED_DEMO="false", WEBHOOK_ALLOWED_HOSTS="127.0.0.1"
        )
        cookie = json.loads(run_cli(env, "admin", "demo"))["cookie"]
        headers = {
            "Cookie": f"graphNodeCookie={cookie}",
            "x-svc-teamid": TEAM,
            "x-svc-channelId": CHANNEL,
        }
        port = free_port()
        with (
            Receiver().running() as receiver,
            server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port) as app,
        ):
            return asyncio.run(_measure(app.base, headers, receiver))


async def _measure(base: str, headers: dict[str, str], receiver: Receiver) -> dict[str, float]:
    hook = f"http://127.0.0.1:{receiver.port}/hook"
    rule = {
        "eventName": "Every new bug",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "actionType": "HTTP",
        "action": {"url": hook, "method": "POST", "headers": []},
    }
    async with aiohttp.ClientSession(headers=headers) as http:
        async with http.post(f"{base}/odata/eventDefinitions", json=rule) as response:
            assert response.status == 201, await response.text()
        app_ms, bare_ms = [], []
        for n in range(CHANGES + 5):  # the first five warm up
            name = f"Latency probe {n}"
            started = time.perf_counter()
            async with http.post(f"{base}/odata/bugs", json={"name": name}) as response:
                assert response.status == 201, await response.text()
            arrived = await receiver.until(name)
            started_bare = time.perf_counter()
            async with http.post(hook, json={"key": f"bare {n}"}) as response:
                assert response.status == 200
            bare_arrived = await receiver.until(f"bare {n}")
            if n >= 5:
                app_ms.append((arrived - started) * 1000)
                bare_ms.append((bare_arrived - started_bare) * 1000)
            await asyncio.sleep(PAUSE_S)
    return {
        "p50": statistics.median(app_ms),
        "p95": _p95(app_ms),
        "max": max(app_ms),
        "bare_p50": statistics.median(bare_ms),
        "bare_p95": _p95(bare_ms),
    }


def _p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95) - 1]


def report(kind: str, figures: dict[str, float]) -> str:
    return (
        f"{kind:>10}: commit → received p50 {figures['p50']:.1f} ms, p95 {figures['p95']:.1f} ms"
        f" (max {figures['max']:.1f}; goal p95 ≤ 100 ms); bare POST p50"
        f" {figures['bare_p50']:.2f} ms, p95 {figures['bare_p95']:.2f} ms"
    )

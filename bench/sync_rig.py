"""What the sync benchmarks share, whichever the source: what differs by source (`SyncSource`:
`sync_ado.SOURCE`, `sync_jira.SOURCE`, `sync_planner.SOURCE`), its local stand-in in its own
process, the app as its own process on a scratch database with channels to link projects in,
and linking one through the API as a user does (`POST /api/projects`, sync enabled)."""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import aiohttp

from bench.harness import environment, free_port, run_cli, scratch_database, server
from bot import workspace
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.uow import unit_of_work

TEAM, CHANNEL = "19:demo-team@thread.tacv2", "19:demo-bugs@thread.tacv2"
# The sizes take a quarter of an hour on a loaded machine; by default the runs are a
# fifth of them (`BENCH_FULL=1 python -m bench sync` for the full sizes).
FULL = os.environ.get("BENCH_FULL") == "1"


@dataclass(frozen=True)
class Standin:
    hostname: str  # what a project's `hostname` names
    project: str  # what its `sourceId` names
    root: str  # the server's base, which the paths of its exchange log follow
    control: str  # the control API's base


class SyncSource(Protocol):
    """What the sync benchmarks need to know of a source."""

    name: str  # as a title names it
    items: str  # what it calls its items
    rich: str | None  # what the import's second variant, rich text, is written in (if any)
    hooked: bool  # whether a change there calls the app back (else polling alone brings it)
    standin: str  # the module serving its stand-in with the control API (`standin_control`)
    pages: str  # what the bare client reads in an import
    page: int  # items one page of the import brings
    write: str  # the method of the request that makes a change there
    answered: frozenset[int]  # the statuses a replayed request may meet

    def app_settings(self, there: Standin) -> dict[str, str]:
        """What the app's settings must name for it to reach the stand-in (beside the link)."""

    def link_body(self, there: Standin) -> dict[str, Any]:
        """`POST /api/projects`' source part: `source`, `sourceId`, `hostname`, credentials."""

    def push_scope(self, there: Standin) -> tuple[str | None, str | None]:
        """The area the app's pushed items are seeded in, and the project's `query` that keeps
        the bare client's twins (seeded in area "Bare") out of it."""

    def title(self, name: str) -> dict[str, Any]:
        """The fields the control API's `/change` takes to retitle an item there."""

    async def bare_import(self, there: Standin) -> int:
        """The import's pages read as the connector asks for them; the items read."""

    def replayed(
        self, request: dict[str, Any], twin: dict[str, str], revs: dict[str, int]
    ) -> tuple[str, bytes | None, dict[str, str]]:
        """A request the app sent, aimed at the twin of its item (`revs`: each twin's revision
        now, to be kept up to date): its path, body and headers."""


@contextmanager
def standin(source: SyncSource) -> Iterator[Standin]:
    port, control_port = free_port(), free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", source.standin, str(port), str(control_port)],
        stdout=subprocess.PIPE,
    )
    try:
        assert process.stdout is not None
        ready = json.loads(process.stdout.readline())
        yield Standin(
            ready["hostname"], ready["project"], ready["root"], f"http://127.0.0.1:{control_port}"
        )
    finally:
        process.terminate()
        process.wait()


@dataclass(frozen=True)
class App:
    base: str
    pid: int
    url: str  # the database's
    headers: dict[str, str]  # the demo user's session, without a channel

    def in_channel(self, channel: str) -> dict[str, str]:
        return {**self.headers, "x-svc-teamid": TEAM, "x-svc-channelId": channel}


@contextmanager
def app(kind: str, *, channels: int = 1, **settings: str) -> Iterator[App]:
    """The app (`python app.py`) on a scratch database: the demo, plus `channels` empty channels
    of the demo team (`channel_name(n)`), each to link one project in."""
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(
            url, DATA_DIR=folder, SEED_DEMO="false", SYNC_ALLOWED_HOSTS="127.0.0.1", **settings
        )
        cookie = json.loads(run_cli(env, "admin", "demo"))["cookie"]
        asyncio.run(_add_channels(url, channels))
        port = free_port()
        # BENCH_APP_PREFIX: what runs the app, e.g. `-m cProfile -o app.prof` to profile it.
        command = [sys.executable, *os.environ.get("BENCH_APP_PREFIX", "").split(), "app.py"]
        with server(command, {**env, "PORT": str(port)}, port) as running:
            yield App(running.base, running.pid, url, {"Cookie": f"graphNodeCookie={cookie}"})


def channel_name(n: int) -> str:
    return f"19:sync-bench-{n}@thread.tacv2"


async def _add_channels(url: str, count: int) -> None:
    engine = create_engine(url)
    try:
        async with unit_of_work(session_factory(engine), SystemClock()) as uow:
            for n in range(count):
                await workspace.add_channel(
                    uow, team_id=TEAM, channel_id=channel_name(n), name=f"Sync {n}"
                )
    finally:
        await engine.dispose()


async def link(
    http: aiohttp.ClientSession,
    app: App,
    channel: str,
    source: SyncSource,
    there: Standin,
    **sync: Any,
) -> tuple[str, str]:
    """A project linked through the API, sync enabled (the import runs in the app): its id
    and its hook secret (none for a source without hooks: Planner)."""
    body = {"displayName": "Fabrikam", **source.link_body(there), "sync": {"enabled": True, **sync}}
    async with http.post(
        f"{app.base}/api/projects", json=body, headers=app.in_channel(channel)
    ) as response:
        assert response.status == 201, await response.text()
        answer = await response.json()
    return str(answer["_id"]), str(answer.get("hookSecret") or "")


async def until_synced(
    http: aiohttp.ClientSession,
    app: App,
    channel: str,
    project_id: str,
    *,
    poll: float = 0.02,
    timeout: float = 600,
) -> dict[str, Any]:
    """The project's sync once it runs (its import over) with nothing pending; read every
    `poll` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        async with http.get(
            f"{app.base}/api/projects/{project_id}/sync", headers=app.in_channel(channel)
        ) as response:
            assert response.status == 200, await response.text()
            shown: dict[str, Any] = await response.json()
        if shown["state"] == "running" and not shown["pending"]:
            return shown
        if shown["state"] in ("paused", "failing") or time.monotonic() > deadline:
            raise RuntimeError(f"the sync did not settle: {shown}")
        await asyncio.sleep(poll)


async def control(
    http: aiohttp.ClientSession, there: Standin, method: str, path: str, **body: Any
) -> Any:
    async with http.request(
        method, f"{there.control}{path}", json=body if method == "POST" else None
    ) as response:
        assert response.status == 200, await response.text()
        return await response.json()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]

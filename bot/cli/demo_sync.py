"""`python -m bot admin demo --with-azure-devops | --with-jira | --with-planner`: the demo served
as `make run` serves it, with a local source beside it (the tests' stand-in, on loopback, seeded
with a few items, `demo_sources`) and a project of the demo channel linked to it with sync on, so
items can be watched travelling both ways. Only this app may reach a loopback source: its own
settings add the stand-in's address to SYNC_ALLOWED_HOSTS; the app `make run` starts does not."""

import asyncio
import socket
import sys
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar, Generic, TypeVar

import aiohttp
import orjson
from aiohttp import web

from bot.app import create_app
from bot.cli.failure import CommandFailed
from bot.db.uow import unit_of_work
from bot.demo import CHANNEL_ID, TEAM_ID, seed_demo
from bot.keys import CLOCK, SESSIONS
from bot.settings import Settings
from bot.sync.standins.wire import LocalSource

LOOPBACK = "127.0.0.1"
Standin = TypeVar("Standin", bound=LocalSource)


class DemoSource(ABC, Generic[Standin]):
    """One source the demo can serve beside itself: its stand-in, what it starts with, and how
    the demo's project links to it."""

    name: ClassVar[str]  # as messages name it: "Azure DevOps"
    option: ClassVar[str]  # the command's `--with-<option>` and `--<option>-port`
    default_port: ClassVar[int]  # the port `python -m bot.sync.standins.<...>` serves on
    kind: ClassVar[str]  # the project's `source`
    display_name: ClassVar[str]  # the demo project's name
    listed: ClassVar[str] = "bugs"  # the list `watch` shows

    def __init__(self) -> None:
        self.standin = self.make()

    @abstractmethod
    def make(self) -> Standin: ...

    @abstractmethod
    def seed(self) -> None:
        """The items there at the start, some assigned to the demo's people."""

    @abstractmethod
    def link_body(self) -> dict[str, Any]:
        """The project's `sourceId`, `hostname` and credentials, as `POST /api/projects` takes
        them."""

    @abstractmethod
    def said(self) -> dict[str, Any]:
        """Where the source is, how to sign in there, and `changeThere`: a curl line (or a few)
        changing an item there."""

    def app_settings(self) -> dict[str, Any]:
        """Settings the app needs besides to reach the source (Settings' field names)."""
        return {}

    async def linked(self, http: aiohttp.ClientSession, app_url: str, project_id: str) -> None:
        """Called once the project is linked (`http` signed in to the app)."""


@dataclass(frozen=True, slots=True)
class DemoWithSource:
    app: web.Application
    url: str  # where the app answers
    cookie: str  # the demo's Ada, signed in
    project_id: str
    source: DemoSource[Any]

    @property
    def standin(self) -> Any:
        return self.source.standin

    def said(self) -> dict[str, Any]:
        """What the command prints: where each side is, and how to make a change on each."""
        headers = f"-H 'x-svc-teamid: {TEAM_ID}' -H 'x-svc-channelId: {CHANNEL_ID}'"
        return {
            "url": self.url,
            "cookie": self.cookie,
            "teamId": TEAM_ID,
            "channelId": CHANNEL_ID,
            "projectId": self.project_id,
            "watch": f"curl -s '{self.url}/odata/{self.source.listed}"
            "?$select=name,status,source,sourceId' "
            f"-H 'Cookie: graphNodeCookie={self.cookie}' {headers}",
            **self.source.said(),
        }


async def serve(
    settings: Settings,
    source: DemoSource[Any],
    *,
    source_port: int,
    until: Callable[[DemoWithSource], Awaitable[None]],
    app_port: int | None = None,
) -> None:
    """Serve the app (on PORT, or `app_port`; 0: any free one) and the source's stand-in, linked,
    until `until` returns."""
    standin = source.standin
    try:
        await standin.start(LOOPBACK, source_port)
    except OSError as exc:
        await standin.close()
        raise CommandFailed(
            f"The local {source.name} cannot listen on {LOOPBACK}:{source_port}: {exc.strerror} "
            f"(--{source.option}-port 0 takes any free port)"
        ) from None
    try:
        source.seed()
        port = settings.port if app_port is None else app_port
        with _listening(settings.host, port) as listener:
            port = listener.getsockname()[1]
            app_settings = _with_loopback_source(settings, port, source.app_settings())
            app = create_app(app_settings)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            try:
                await web.SockSite(runner, listener).start()
                demo = await _link(app, app_settings, source)
                await until(demo)
            finally:
                await runner.cleanup()
    finally:
        await standin.close()


async def until_interrupted(demo: DemoWithSource) -> None:
    """Say where everything is (one JSON object, as every admin command answers), then serve
    until Ctrl-C."""
    sys.stdout.write(orjson.dumps(demo.said()).decode() + "\n")
    sys.stdout.flush()
    await asyncio.Event().wait()


@contextmanager
def _listening(host: str, port: int) -> Iterator[socket.socket]:
    """A socket bound to `host:port` (port 0: any free one), so the app knows its own address
    (the hooks' PUBLIC_URL) before it serves; a port in use is said plainly."""
    try:
        listener = socket.create_server((host, port))
    except OSError as exc:
        raise CommandFailed(
            f"The app cannot listen on {host}:{port} (PORT): {exc.strerror}"
        ) from None
    with listener:
        yield listener


def _with_loopback_source(settings: Settings, port: int, besides: dict[str, Any]) -> Settings:
    public_url = settings.public_url
    if public_url == f"http://{settings.host}:{settings.port}":  # derived, not set
        public_url = f"http://{settings.host}:{port}"
    allowed = [*settings.sync_allowed_hosts, LOOPBACK]
    return settings.model_copy(
        update={"port": port, "public_url": public_url, "sync_allowed_hosts": allowed, **besides}
    )


async def _link(
    app: web.Application, settings: Settings, source: DemoSource[Any]
) -> DemoWithSource:
    """The demo signed in, and its project linked through the API, as a person would: made the
    first time, pointed at this run's stand-in after that."""
    async with unit_of_work(app[SESSIONS], app[CLOCK]) as uow:
        signed_in = await seed_demo(uow, session_ttl=timedelta(seconds=settings.session_ttl))
    url = f"http://{settings.host}:{settings.port}"
    headers = {
        "Cookie": f"graphNodeCookie={signed_in.cookie}",
        "x-svc-teamid": TEAM_ID,
        "x-svc-channelId": CHANNEL_ID,
    }
    linked = {**source.link_body(), "sync": {"enabled": True, "intervalSeconds": 15}}
    async with aiohttp.ClientSession(url, headers=headers) as http:
        body = {"displayName": source.display_name, "source": source.kind}
        async with http.post("/api/projects", json=body | linked) as made:
            answer = await made.json()
            status = made.status
        if status == 409:  # linked by an earlier run, to a stand-in that has gone
            project_id = await _project_id(http, source.kind, linked["sourceId"])
            # Off, then on at this run's address: the link's hooks are made here anew.
            for patch in ({"sync": {"enabled": False}}, linked):
                async with http.patch(f"/api/projects/{project_id}", json=patch) as patched:
                    answer, status = await patched.json(), patched.status
        if status not in (200, 201):
            raise RuntimeError(f"linking the demo project failed ({status}): {answer}")
        await source.linked(http, settings.public_url, answer["_id"])
    return DemoWithSource(app, url, signed_in.cookie, answer["_id"], source)


async def _project_id(http: aiohttp.ClientSession, kind: str, source_id: str) -> str:
    async with http.get("/api/projects") as found:
        projects = (await found.json())["value"]
    (project,) = [p for p in projects if (p["source"], p["sourceId"]) == (kind, source_id)]
    return str(project["_id"])

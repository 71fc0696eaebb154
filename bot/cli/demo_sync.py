"""`python -m bot admin demo --with-azure-devops`: the demo served as `make run` serves it, with a
local Azure DevOps beside it (the test stand-in, on loopback, seeded with a few work items) and
the demo channel's project "Fabrikam" linked to it with sync on, so items can be watched
travelling both ways. Only this app may reach a loopback source: its own settings add the
stand-in's address to SYNC_ALLOWED_HOSTS; the app `make run` starts does not."""

import asyncio
import socket
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from bot.app import create_app
from bot.cli.failure import CommandFailed
from bot.db.uow import unit_of_work
from bot.demo import CHANNEL_ID, TEAM_ID, USERS, seed_demo
from bot.keys import CLOCK, SESSIONS
from bot.settings import Settings
from bot.sync.standins.azure_devops import AzureDevOpsStandin

LOOPBACK = "127.0.0.1"
DEFAULT_PORT = 8090  # the stand-in's, as `python -m bot.sync.standins.azure_devops` serves it
# Work items "there" at the start, a bug and a task in turn (as the stand-in seeds types):
# title, state, priority, assignee (an index into the demo's people, or None), description.
WORK_ITEMS = [
    ("Checkout times out for carts over 50 items", "Active", 1, 0,
     "<p>Steps:</p><ol><li>Add 51 items</li><li>Pay</li></ol><p>Gateway answers 504.</p>"),
    ("Rotate the storage account keys", "New", 2, 0,
     "<p>Due every 90 days; see <a href=\"https://example.com/runbook\">the runbook</a>.</p>"),
    ("Invoice PDF shows the wrong VAT rate", "New", 2, 1,
     "<p>Rate is 19 % for <code>DE</code> customers; the PDF prints 16 %.</p>"),
    ("Write release notes for 2.4", "Active", 3, 1,
     "<ul><li>New dashboard</li><li>Faster search</li></ul>"),
    ("Password reset mail lands in spam", "Resolved", 3, None,
     "<p>SPF record is missing the new mail relay.</p>"),
    ("Archive last year's sprint boards", "Closed", 4, None, "<p>Done in October.</p>"),
]  # fmt: skip
PROJECT = "Fabrikam"


@dataclass(frozen=True, slots=True)
class DemoWithSource:
    app: web.Application
    url: str  # where the app answers
    cookie: str  # the demo's Ada, signed in
    project_id: str
    standin: AzureDevOpsStandin

    def said(self) -> dict[str, Any]:
        """What the command prints: where each side is, and how to make a change on each."""
        headers = f"-H 'x-svc-teamid: {TEAM_ID}' -H 'x-svc-channelId: {CHANNEL_ID}'"
        first = min(self.standin.store.items)
        return {
            "url": self.url,
            "cookie": self.cookie,
            "teamId": TEAM_ID,
            "channelId": CHANNEL_ID,
            "projectId": self.project_id,
            "azureDevOps": self.standin.org_url,
            "azureDevOpsProject": self.standin.project,
            "token": self.standin.token,
            "watch": f"curl -s '{self.url}/odata/bugs?$select=name,status,source,sourceId' "
            f"-H 'Cookie: graphNodeCookie={self.cookie}' {headers}",
            "changeThere": f"curl -s -u :{self.standin.token} -X PATCH "
            "-H 'Content-Type: application/json-patch+json' "
            f"'{self.standin.org_url}/{self.standin.project}/_apis/wit/workitems/{first}"
            "?api-version=7.1' "
            """-d '[{"op": "add", "path": "/fields/System.Title", "value": "Renamed there"}]'""",
        }


async def serve(
    settings: Settings,
    *,
    source_port: int,
    until: Callable[[DemoWithSource], Awaitable[None]],
    app_port: int | None = None,
) -> None:
    """Serve the app (on PORT, or `app_port`; 0: any free one) and the stand-in, linked, until
    `until` returns."""
    standin = AzureDevOpsStandin(project=PROJECT)
    try:
        await standin.start(LOOPBACK, source_port)
    except OSError as exc:
        await standin.close()
        raise CommandFailed(
            f"The local Azure DevOps cannot listen on {LOOPBACK}:{source_port}: {exc.strerror} "
            "(--azure-devops-port 0 takes any free port)"
        ) from None
    try:
        seed(standin)
        port = settings.port if app_port is None else app_port
        with _listening(settings.host, port) as listener:
            port = listener.getsockname()[1]
            app_settings = _with_loopback_source(settings, port)
            app = create_app(app_settings)
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            try:
                await web.SockSite(runner, listener).start()
                demo = await _link(app, app_settings, standin)
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


def seed(standin: AzureDevOpsStandin) -> None:
    """The work items the demo starts with, assigned to the demo's people by email."""
    people = [f"{name} <{email}>" for _, email, name in USERS]
    rows = [
        {
            "System.Title": title,
            "System.State": state,
            "Microsoft.VSTS.Common.Priority": priority,
            "System.AssignedTo": people[who] if who is not None else None,
            # A bug's description is its repro steps (sync.md, fields).
            "Microsoft.VSTS.TCM.ReproSteps" if n % 2 == 0 else "System.Description": text,
        }
        for n, (title, state, priority, who, text) in enumerate(WORK_ITEMS)
    ]
    standin.seed(len(rows), types=("Bug", "Task"), fields=lambda n: rows[n])


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


def _with_loopback_source(settings: Settings, port: int) -> Settings:
    public_url = settings.public_url
    if public_url == f"http://{settings.host}:{settings.port}":  # derived, not set
        public_url = f"http://{settings.host}:{port}"
    allowed = [*settings.sync_allowed_hosts, LOOPBACK]
    return settings.model_copy(
        update={"port": port, "public_url": public_url, "sync_allowed_hosts": allowed}
    )


async def _link(
    app: web.Application, settings: Settings, standin: AzureDevOpsStandin
) -> DemoWithSource:
    """The demo signed in, and its Fabrikam project linked through the API, as a person would:
    made the first time, pointed at this run's stand-in after that."""
    async with unit_of_work(app[SESSIONS], app[CLOCK]) as uow:
        signed_in = await seed_demo(uow, session_ttl=timedelta(seconds=settings.session_ttl))
    url = f"http://{settings.host}:{settings.port}"
    headers = {
        "Cookie": f"graphNodeCookie={signed_in.cookie}",
        "x-svc-teamid": TEAM_ID,
        "x-svc-channelId": CHANNEL_ID,
    }
    linked = {
        "hostname": standin.org_url,
        "token": standin.token,
        "sync": {"enabled": True, "intervalSeconds": 15},
    }
    async with aiohttp.ClientSession(url, headers=headers) as http:
        body = {"displayName": PROJECT, "source": "Microsoft.Vsts", "sourceId": PROJECT}
        async with http.post("/api/projects", json=body | linked) as made:
            answer = await made.json()
            status = made.status
        if status == 409:  # linked by an earlier run, to a stand-in that has gone
            project_id = await _project_id(http)
            # Off, then on at this run's address: the link's hooks are made here anew.
            for patch in ({"sync": {"enabled": False}}, linked):
                async with http.patch(f"/api/projects/{project_id}", json=patch) as patched:
                    answer, status = await patched.json(), patched.status
        if status not in (200, 201):
            raise RuntimeError(f"linking the demo project failed ({status}): {answer}")
    return DemoWithSource(app, url, signed_in.cookie, answer["_id"], standin)


async def _project_id(http: aiohttp.ClientSession) -> str:
    async with http.get("/api/projects") as found:
        projects = (await found.json())["value"]
    (project,) = [
        p for p in projects if (p["source"], p["sourceId"]) == ("Microsoft.Vsts", PROJECT)
    ]
    return str(project["_id"])

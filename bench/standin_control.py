"""What a local source run for the sync benchmarks shares, whichever source it stands in for
(`ado_standin`, `jira_standin`): a short exchange log, when each item's revision arrived, and
the small control API served beside it on a second port (seed, change items "there", say when
a change made here arrived, list the requests served, hooks on or off).

A stand-in in its own process, so that neither the app nor the bench's bare client shares its
CPU time or its event loop. Its exchange log keeps only what a bare client replays (method,
path, query, request body): the stand-in's full log parses every answer again, a cost no real
service has.
"""

import asyncio
import json
import time
from typing import Any, Protocol

from aiohttp import web


class Controlled(Protocol):
    """A stand-in as the control API drives it, in the bench's words (item ids as text)."""

    served: list[dict[str, Any]]
    arrived: dict[tuple[str, int], float]
    arrival: asyncio.Event

    def ready(self) -> dict[str, str]:
        """What the bench links a project with: `hostname`, `project`, `root` (the server's
        base, which the exchange log's paths follow)."""

    def seed_items(self, count: int, *, rich: bool, area: str | None) -> list[str]: ...

    def change_item(self, item_id: str, fields: dict[str, Any]) -> int:
        """Changed there by someone; the item's new revision."""

    def revisions(self) -> dict[str, int]: ...

    def hooks(self, asked: dict[str, Any]) -> None:
        """`on` false: no change calls anyone back; true: as the source's hooks go (with the
        `url` and `secret` a source's administrator registers by hand)."""


class Noting:
    """Mixed into a stand-in (a `LocalSource`): notes when each item's revision arrived (on the
    monotonic clock, which every process on the machine shares) and keeps the short log."""

    def __init__(self) -> None:
        self.arrived: dict[tuple[str, int], float] = {}
        self.served: list[dict[str, Any]] = []
        self.arrival = asyncio.Event()

    def noted(self, item_id: str, rev: int) -> None:
        self.arrived[(item_id, rev)] = time.monotonic()
        self.arrival.set()
        self.arrival = asyncio.Event()

    @web.middleware
    async def _log(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.text()
        response: web.StreamResponse = await handler(request)
        self.served.append(
            {
                "method": request.method,
                "path": request.path,
                "query": dict(request.query),
                "body": _parsed(body),
                "status": response.status,
            }
        )
        return response


def _parsed(body: str) -> Any:
    try:
        return json.loads(body) if body else None
    except ValueError:
        return body  # a form (Entra's token request)


def control(standin: Controlled) -> web.Application:
    routes = web.RouteTableDef()

    @routes.post("/seed")
    async def seed(request: web.Request) -> web.Response:
        asked = await request.json()
        made = standin.seed_items(
            int(asked["count"]), rich=asked.get("rich", False), area=asked.get("area")
        )
        return web.json_response(made)

    @routes.post("/change")
    async def change(request: web.Request) -> web.Response:
        asked = await request.json()
        started = time.monotonic()
        rev = standin.change_item(str(asked["id"]), asked["fields"])
        return web.json_response({"rev": rev, "at": started})

    @routes.get("/arrived")
    async def arrived(request: web.Request) -> web.Response:
        """When the item's revision `rev` was made; waits for it (up to `wait` seconds)."""
        key = (request.query["id"], int(request.query["rev"]))
        deadline = time.monotonic() + float(request.query.get("wait", "10"))
        while key not in standin.arrived:
            left = deadline - time.monotonic()
            if left <= 0:
                raise web.HTTPNotFound(text=f"revision {key} has not arrived")
            try:
                await asyncio.wait_for(standin.arrival.wait(), left)
            except TimeoutError:
                continue
        return web.json_response({"at": standin.arrived[key]})

    @routes.get("/revs")
    async def revs(request: web.Request) -> web.Response:
        return web.json_response(standin.revisions())

    @routes.post("/hooks")
    async def hooks(request: web.Request) -> web.Response:
        standin.hooks(await request.json())
        return web.json_response({})

    @routes.get("/served")
    async def served(request: web.Request) -> web.Response:
        """The requests served since the last call (and forgets them)."""
        listed, standin.served = standin.served, []
        return web.json_response(listed)

    app = web.Application()
    app.add_routes(routes)
    return app


async def serve(standin: Any, port: int, control_port: int) -> None:
    """The stand-in (a `LocalSource` and `Controlled`) and its control API until the process is
    ended; prints `ready()` as a line of JSON once both listen."""
    await standin.start(port=port)
    runner = web.AppRunner(control(standin), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", control_port).start()
    print(json.dumps(standin.ready()), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        await standin.close()

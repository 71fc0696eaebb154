"""The local Azure DevOps in a process of its own for the sync benchmarks, with a small control
API beside it on a second port: seed, change items "there", say when a change made here
arrived, list the requests served (`python -m bench.ado_standin PORT CONTROL_PORT`).

Its own process, so that neither the app nor the bench's bare client shares its CPU time or
its event loop. Its exchange log keeps only what a bare client replays (method, path, query,
request body): the stand-in's full log parses every answer again, a cost no real service has.
"""

import asyncio
import json
import sys
import time
from typing import Any

from aiohttp import web

from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.azure_devops.store import WorkItem

TOKEN = "bench-pat"
# What an HTML description looks like when a person wrote it in Azure DevOps' editor.
DESCRIPTION = (
    "<div><p>Steps to reproduce number {n}:</p><ol><li>Open the <b>printer</b> page</li>"
    '<li>Click <i>Print</i> twice</li></ol><p>See <a href="https://example.com/{n}">the '
    "log</a>; it says <code>E{n}</code>.</p><ul><li>Windows 11</li><li>Edge</li></ul></div>"
)


class BenchStandin(AzureDevOpsStandin):
    """The stand-in, noting when each item's revision arrived (on the monotonic clock, which
    every process on the machine shares) and keeping a short log of requests."""

    def __init__(self) -> None:
        super().__init__(token=TOKEN)
        self.arrived: dict[tuple[int, int], float] = {}
        self.served: list[dict[str, Any]] = []
        self.arrival = asyncio.Event()

    def _changed(self, event_type: str, item: WorkItem, before: dict[str, Any]) -> None:
        self.arrived[(item.id, item.rev)] = time.monotonic()
        self.arrival.set()
        self.arrival = asyncio.Event()
        super()._changed(event_type, item, before)

    @web.middleware
    async def _log(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.text()
        response: web.StreamResponse = await handler(request)
        self.served.append(
            {
                "method": request.method,
                "path": request.path,
                "query": dict(request.query),
                "body": json.loads(body) if body else None,
                "status": response.status,
            }
        )
        return response


def control(standin: BenchStandin) -> web.Application:
    routes = web.RouteTableDef()

    @routes.post("/seed")
    async def seed(request: web.Request) -> web.Response:
        asked = await request.json()
        html, area = asked.get("html", False), asked.get("area")

        def fields(n: int) -> dict[str, Any]:
            values = {"System.AreaPath": f"{standin.project}\\{area}"} if area else {}
            if html:
                # Seeds take Bug and Task in turn; a Bug keeps its description in its repro steps.
                where = "Microsoft.VSTS.TCM.ReproSteps" if n % 2 == 0 else "System.Description"
                values[where] = DESCRIPTION.format(n=n)
            return values

        return web.json_response(standin.seed(int(asked["count"]), fields=fields))

    @routes.post("/change")
    async def change(request: web.Request) -> web.Response:
        asked = await request.json()
        started = time.monotonic()
        rev = standin.change(int(asked["id"]), asked["fields"])
        return web.json_response({"rev": rev, "at": started})

    @routes.get("/arrived")
    async def arrived(request: web.Request) -> web.Response:
        """When the item's revision `rev` was made; waits for it (up to `wait` seconds)."""
        key = (int(request.query["id"]), int(request.query["rev"]))
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
        items = standin.store.items
        return web.json_response({str(i): items[i].rev for i in items})

    @routes.post("/hooks")
    async def hooks(request: web.Request) -> web.Response:
        """The token may (or may not) subscribe to service hooks; off removes them all."""
        asked = await request.json()
        standin.add_token(TOKEN, hooks=bool(asked["on"]))
        if not asked["on"]:
            standin.subscriptions.clear()
        return web.json_response({})

    @routes.get("/served")
    async def served(request: web.Request) -> web.Response:
        """The requests served since the last call (and forgets them)."""
        listed, standin.served = standin.served, []
        return web.json_response(listed)

    @routes.get("/hook-calls")
    async def hook_calls(request: web.Request) -> web.Response:
        return web.json_response({"count": len(standin.hook_calls)})

    app = web.Application()
    app.add_routes(routes)
    return app


async def main(port: int, control_port: int) -> None:
    standin = BenchStandin()
    await standin.start(port=port)
    runner = web.AppRunner(control(standin), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", control_port).start()
    print(json.dumps({"org": standin.org_url, "project": standin.project}), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
        await standin.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))

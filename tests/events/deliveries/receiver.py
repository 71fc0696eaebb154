"""A webhook receiver on loopback: answers by path, records every request it gets."""

import asyncio
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aiohttp import web
from multidict import CIMultiDict
from standardwebhooks import Webhook

from tests.waiting import PATIENCE


@dataclass
class Received:
    method: str
    path: str
    headers: CIMultiDict[str]
    body: str

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    def verify(self, secret: str) -> None:
        """Standard Webhooks' own verifier (timestamp within 5 minutes of the wall clock)."""
        Webhook(secret).verify(self.body, dict(self.headers), json_parse=False)

    def signed_by(self, secret: str) -> bool:
        """Whether one of the signatures is the package's for `secret`, whatever the clock:
        for tests whose frozen clock has moved days past the wall clock."""
        at = datetime.fromtimestamp(int(self.headers["webhook-timestamp"]), UTC)
        expected = Webhook(secret).sign(self.webhook_id, at, self.body)
        return expected in self.headers["webhook-signature"].split(" ")


@dataclass
class Receiver:
    """`/ok` 200, `/fail` 500, `/throttle` 429 with Retry-After: 120, `/gone` 410, `/refuse`
    400, `/redirect` 302 to /ok, `/hang` waits until `release` is set, `/hang-once` hangs the
    first request only."""

    base_url: str = ""
    requests: list[Received] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    hanging: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{what}", self._handle)
        return app

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def to(self, path: str) -> list[Received]:
        return [request for request in self.requests if request.path == path]

    async def until(self, count: int) -> None:
        """Wait until `count` requests have arrived (bounded only against a hang)."""
        async with asyncio.timeout(PATIENCE):
            while len(self.requests) < count:
                self._changed.clear()
                await self._changed.wait()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.text()
        self.requests.append(
            Received(request.method, request.path, CIMultiDict(request.headers), body)
        )
        self._changed.set()
        what = request.match_info["what"]
        if what == "hang" or (what == "hang-once" and len(self.to("/hang-once")) == 1):
            self.hanging += 1
            try:
                await self.release.wait()
            finally:
                self.hanging -= 1
        if what == "fail":
            return web.Response(status=500, text="receiver broke")
        if what == "throttle":
            return web.Response(status=429, headers={"Retry-After": "120"})
        if what == "gone":
            return web.Response(status=410)
        if what == "refuse":
            return web.Response(status=400, text="bad payload")
        if what == "redirect":
            raise web.HTTPFound(self.url("/ok"))
        return web.Response(status=200, text="thanks")

"""The console's side of the Bot Connector, as the Bot Framework Emulator runs it: a small aiohttp
server on loopback that the bot posts its replies to (the activities' `serviceUrl`), keeping
them until the console shows them."""

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class Received:
    """A message the bot sent, or one it changed in place (`updated`)."""

    activity: dict[str, Any]
    updated: bool = False


@dataclass
class LocalConnector:
    """What the bot sent since the console last looked."""

    received: list[Received] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def take(self) -> list[Received]:
        """The messages received since the last call, in order."""
        taken, self.received = self.received, []
        return taken

    def app(self) -> web.Application:
        app = web.Application()
        conversation = "/v3/conversations/{conversation}"
        app.router.add_post("/v3/conversations", self._new_conversation)
        app.router.add_post(conversation + "/activities", self._send)
        app.router.add_post(conversation + "/activities/{activity}", self._send)
        app.router.add_put(conversation + "/activities/{activity}", self._update)
        return app

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[str]:
        """Listening on a free loopback port; yields the service URL to give the bot."""
        runner = web.AppRunner(self.app(), access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, LOOPBACK, 0)
            await site.start()
            host, port = runner.addresses[0][:2]
            yield f"http://{host}:{port}"
        finally:
            await runner.cleanup()

    async def _send(self, request: web.Request) -> web.Response:
        self.received.append(Received(await _activity(request)))
        return web.json_response({"id": str(next(self._ids))})

    async def _update(self, request: web.Request) -> web.Response:
        self.received.append(Received(await _activity(request), updated=True))
        return web.json_response({"id": request.match_info["activity"]})

    async def _new_conversation(self, request: web.Request) -> web.Response:
        """A new thread (a discussion's root): shown like any message; its ids made up."""
        body = await _activity(request)
        self.received.append(Received(body.get("activity") or {}))
        message_id = str(next(self._ids))
        channel = ((body.get("channelData") or {}).get("channel") or {}).get("id", "console")
        return web.json_response(
            {"id": f"{channel};messageid={message_id}", "activityId": message_id}
        )


async def _activity(request: web.Request) -> dict[str, Any]:
    body = await request.json() if request.can_read_body else {}
    return body if isinstance(body, dict) else {}

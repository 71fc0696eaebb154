"""The Bot Framework's signing keys when their server hangs: one fetch for every activity waiting
on it, then a failure remembered briefly, so activities are refused at once rather than in turn."""

import asyncio

import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.auth import key_cache
from bot.clock import FrozenClock
from bot.teams.transport.endpoint import UNAUTHORIZED
from tests.teams.activities import APP_ID, BotFrameworkIssuer, installed
from tests.teams.conftest import FixedTokenCredentials
from tests.waiting import PATIENCE

ACTIVITIES = 6
# The fetch's timeout, shortened for the test (10 s in the app).
FETCH_TIMEOUT_SECONDS = 1


class HangingMetadata:
    """An OpenID metadata URL that accepts requests and never answers, counting them."""

    def __init__(self) -> None:
        self.fetches = 0
        self.release = asyncio.Event()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/v1/.well-known/openidconfiguration", self._hang)
        return app

    async def _hang(self, _request: web.Request) -> web.Response:
        self.fetches += 1
        await self.release.wait()
        return web.Response(status=503)


async def test_a_hanging_key_server_is_asked_once_and_every_activity_is_refused(
    db: str,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    aiohttp_server: AiohttpServer,
    issuer: BotFrameworkIssuer,
    service_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(key_cache, "FETCH_TIMEOUT_SECONDS", FETCH_TIMEOUT_SECONDS)
    hanging = HangingMetadata()
    server = await aiohttp_server(hanging.app())
    settings = make_settings(
        db,
        JOBS_POLL_SECONDS=0,
        MicrosoftAppId=APP_ID,
        MicrosoftAppPassword="unused-because-tokens-are-fixed",
        BOT_OPENID_METADATA_URL=str(server.make_url("/v1/.well-known/openidconfiguration")),
    )
    client = await aiohttp_client(
        create_app(settings, clock=clock, bot_credentials=FixedTokenCredentials())
    )
    headers = {"Authorization": f"Bearer {issuer.token(service_url)}"}

    async def post() -> tuple[int, object]:
        response = await client.post("/api/messages", json=installed(service_url), headers=headers)
        return response.status, await response.json()

    refused = (401, {"error": UNAUTHORIZED})
    try:
        async with asyncio.timeout(PATIENCE):  # only against a hang: `fetches` tells the rest
            answers = await asyncio.gather(*(post() for _ in range(ACTIVITIES)))
            assert answers == [refused] * ACTIVITIES
            assert hanging.fetches == 1
            # The failure is remembered: the next activity is refused without asking again.
            assert await post() == refused
            assert hanging.fetches == 1
    finally:
        hanging.release.set()

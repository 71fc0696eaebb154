"""The bot under test: the real app, a local connector, and (with an app id) a local issuer."""

from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from botframework.connector.auth import MicrosoftAppCredentials, ServiceClientCredentialsFactory
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from tests.auth.jwks import SigningKey
from tests.factories import CHANNEL, TEAM
from tests.teams.activities import ADA, APP_ID, GRACE, LIN, BotFrameworkIssuer, installed
from tests.teams.bot import Chat, Post
from tests.teams.connector import Connector

CONNECTOR_TOKEN = "token-for-the-connector"


class FixedTokenCredentials(ServiceClientCredentialsFactory):
    """Outgoing calls carry a fixed token instead of one fetched from Entra ID."""

    async def is_valid_app_id(self, app_id: str) -> bool:
        return app_id == APP_ID

    async def is_authentication_disabled(self) -> bool:
        return False

    async def create_credentials(
        self, app_id: str, oauth_scope: str, login_endpoint: str, validate_authority: bool
    ) -> MicrosoftAppCredentials:
        return _FixedToken(app_id, "")


class _FixedToken(MicrosoftAppCredentials):
    def get_access_token(self, force_refresh: bool = False) -> str:
        return CONNECTOR_TOKEN


@pytest.fixture
def connector() -> Connector:
    """Team A: General (the team id, no name) and Bugs; three members."""
    return Connector(
        team_id=TEAM, channels={TEAM: None, CHANNEL: "Bugs"}, members=[ADA, GRACE, LIN]
    )


@pytest.fixture
async def service_url(connector: Connector, aiohttp_server: AiohttpServer) -> str:
    server = await aiohttp_server(connector.app())
    return str(server.make_url("")).rstrip("/")


@pytest.fixture
async def bot(
    db: str, make_settings, clock: FrozenClock, aiohttp_client: AiohttpClient
) -> TestClient:  # noqa: ANN001
    """The app with no app id (Emulator mode) and no background worker."""
    settings = make_settings(db, JOBS_POLL_SECONDS=0)
    return await aiohttp_client(create_app(settings, clock=clock))


@pytest.fixture(scope="module")
def bot_key() -> SigningKey:
    return SigningKey.generate("bot-key")


@pytest.fixture
async def issuer(bot_key: SigningKey, aiohttp_server: AiohttpServer) -> BotFrameworkIssuer:
    issuer = BotFrameworkIssuer(bot_key)
    server = await aiohttp_server(issuer.app())
    issuer.base_url = str(server.make_url("")).rstrip("/")
    return issuer


@pytest.fixture
async def verified_bot(
    db: str,
    make_settings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    issuer: BotFrameworkIssuer,  # noqa: ANN001
) -> TestClient:
    """The app with an app id: every activity must carry a valid Bot Framework token."""
    settings = make_settings(
        db,
        JOBS_POLL_SECONDS=0,
        MicrosoftAppId=APP_ID,
        MicrosoftAppPassword="unused-because-tokens-are-fixed",
        BOT_OPENID_METADATA_URL=issuer.metadata_url,
    )
    app = create_app(settings, clock=clock, bot_credentials=FixedTokenCredentials())
    return await aiohttp_client(app)


def poster(client: TestClient) -> Post:
    async def post(activity: dict[str, Any], **headers: str) -> ClientResponse:
        return await client.post("/api/messages", json=activity, headers=headers)

    return post


@pytest.fixture
def post(bot: TestClient) -> Post:
    return poster(bot)


@pytest.fixture
async def chat(post: Post, service_url: str, connector: Connector) -> Chat:
    """Ada in the Bugs channel of Team A, the app installed there."""
    assert (await post(installed(service_url))).status == 200
    return Chat(post, service_url, connector)

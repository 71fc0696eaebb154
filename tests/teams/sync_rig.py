"""The bot beside the local Azure DevOps: the app may reach sources on loopback and its jobs
are run by the tests; Ada, on Team A's roster through the bot, links projects through the API."""

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from bot.directory.users import find_user, user_out
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.cards.samples import assert_valid
from tests.factories import Factory, Member
from tests.sync.standin_fixtures import MakeAzureDevOps, make_azure_devops
from tests.teams.activities import ADA
from tests.teams.connector import Connector

__all__ = ["bot", "make_azure_devops", "standin"]


@pytest.fixture
async def bot(
    db: str, make_settings, clock: FrozenClock, aiohttp_client: AiohttpClient
) -> TestClient:  # noqa: ANN001
    settings = make_settings(
        db, JOBS_POLL_SECONDS=0, SYNC_ALLOWED_HOSTS="127.0.0.1", PUBLIC_URL="http://127.0.0.1:9"
    )
    return await aiohttp_client(create_app(settings, clock=clock))


@pytest.fixture
async def standin(make_azure_devops: MakeAzureDevOps, clock: FrozenClock) -> AzureDevOpsStandin:
    return await make_azure_devops(clock=clock)  # type: ignore[no-any-return]


async def ada(factory: Factory) -> Member:
    """Ada signed in to the REST API, as the roster recorded her."""
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=ADA.object_id))
    return Member(user=user, cookie=await factory.session(user))


def posted_cards(connector: Connector) -> list[dict]:
    """The cards of the threads the bot started in the channel (each valid, under the limit)."""
    cards = [
        attachment["content"]
        for call in connector.sent()
        if call.path == "/v3/conversations"
        for attachment in call.body["activity"].get("attachments") or ()
    ]
    for card in cards:
        assert_valid(card)
    return cards

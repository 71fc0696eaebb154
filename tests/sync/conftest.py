"""Fixtures for the sync tests: the local Azure DevOps, and an app whose sources may be on
loopback and whose jobs the tests run themselves."""

from datetime import UTC, datetime

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.settings import Settings
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.sync.standin_fixtures import MakeAzureDevOps, azure_devops, make_azure_devops

__all__ = ["azure_devops", "make_azure_devops"]


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2026, 12, 7, 6, 0, tzinfo=UTC))


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    return make_settings(
        db, SYNC_ALLOWED_HOSTS="127.0.0.1", JOBS_POLL_SECONDS=0, PUBLIC_URL="http://127.0.0.1:9"
    )


@pytest.fixture
async def standin(make_azure_devops: MakeAzureDevOps, clock: FrozenClock) -> AzureDevOpsStandin:
    return await make_azure_devops(clock=clock)  # type: ignore[no-any-return]


@pytest.fixture
def second_app(settings: Settings, clock: FrozenClock, aiohttp_client):  # noqa: ANN001, ANN201
    """Starts another app on the test's database when called, as a second process (or one
    started again) would be."""

    async def start() -> TestClient:
        server = TestServer(create_app(settings, clock=clock))
        await server.start_server(access_log=None)
        return await aiohttp_client(server)  # type: ignore[no-any-return]

    return start

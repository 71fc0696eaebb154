"""The bot rig of tests/teams (a local connector, the app with no worker of its own), and Team A
installed with its members."""

import pytest
from aiohttp.test_utils import TestClient

from tests.discussions.head.threads import Rig
from tests.factories import Factory
from tests.teams.activities import installed
from tests.teams.conftest import bot, connector, post, service_url
from tests.teams.connector import Connector

__all__ = ["bot", "connector", "post", "rig", "service_url"]


@pytest.fixture
async def rig(
    bot: TestClient,
    post,
    service_url: str,
    connector: Connector,
    factory: Factory,  # noqa: ANN001
) -> Rig:
    """Ada, Grace and Lin in the Bugs channel of Team A, where the app is installed."""
    assert (await post(installed(service_url))).status == 200
    connector.calls.clear()
    return await Rig.open(bot, connector, factory)

"""Installing the app in a team: Teams announces it twice (installationUpdate and a
conversationUpdate adding the bot); the roster is synced once and the team greeted once."""

from datetime import timedelta

import pytest

from bot.clock import FrozenClock
from tests.cards.samples import text_of
from tests.factories import TEAM
from tests.teams.activities import installed, teams_activity
from tests.teams.bot import Post, sent_cards
from tests.teams.connector import Connector


def installation_update(service_url: str) -> dict:
    return teams_activity("installationUpdate", service_url, channel=TEAM, action="add")


def syncs(connector: Connector) -> int:
    """How many times the bot read the team's details (once per roster sync)."""
    return connector.paths("GET").count(f"/v3/teams/{TEAM}")


@pytest.mark.parametrize("conversation_update_first", [False, True])
async def test_one_install_syncs_the_roster_once_and_greets_the_team_once(
    post: Post, service_url: str, connector: Connector, conversation_update_first: bool
) -> None:
    both = [installation_update(service_url), installed(service_url)]
    for activity in reversed(both) if conversation_update_first else both:
        assert (await post(activity)).status == 200
    assert syncs(connector) == 1
    [greeting] = sent_cards(connector)
    [sent] = connector.sent()
    assert sent.path.startswith(f"/v3/conversations/{TEAM}")  # the team's General channel
    shown = text_of(greeting)
    assert "bugs and tasks" in shown and "help" in shown


async def test_a_later_reinstall_syncs_again(
    post: Post, service_url: str, connector: Connector, clock: FrozenClock
) -> None:
    assert (await post(installation_update(service_url))).status == 200
    clock.advance(timedelta(hours=1))
    assert (await post(installation_update(service_url))).status == 200
    assert syncs(connector) == 2

"""Messages: the roster decides who is answered; the Emulator speaks as the demo user; errors are
one friendly line."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient

from bot import demo
from bot.teams.context import DEMO_MISSING, NOT_ON_ROSTER, UNKNOWN_USER
from tests.cards.samples import text_of
from tests.factories import CHANNEL, Factory
from tests.teams.activities import (
    MALLORY,
    emulator_message,
    installed,
    mention,
    teams_activity,
)
from tests.teams.bot import Post, sent_cards
from tests.teams.connector import Connector


@pytest.fixture
async def installed_team(post: Post, service_url: str, connector: Connector) -> None:
    assert (await post(installed(service_url))).status == 200
    connector.calls.clear()


@pytest.mark.usefixtures("installed_team")
async def test_a_members_message_reaches_run_command_without_the_mention(
    post: Post, service_url: str, connector: Connector
) -> None:
    response = await post(mention(service_url, "bugs/my"))
    assert response.status == 200
    [reply] = connector.sent()
    [card] = sent_cards(connector)
    assert "My bugs" in text_of(card)
    # A reply in the thread the message started.
    assert reply.path.startswith(f"/v3/conversations/{CHANNEL};messageid=")


@pytest.mark.usefixtures("installed_team")
async def test_someone_not_on_the_roster_is_refused_politely(
    post: Post, service_url: str, connector: Connector
) -> None:
    response = await post(mention(service_url, "bugs", sender=MALLORY))
    assert response.status == 200
    assert connector.texts() == [NOT_ON_ROSTER]


async def test_a_team_never_installed_refuses_its_people_too(
    post: Post, service_url: str, connector: Connector
) -> None:
    await post(mention(service_url, "bugs"))
    assert connector.texts() == [NOT_ON_ROSTER]


async def test_an_unknown_user_in_a_personal_chat_is_refused_politely(
    post: Post, service_url: str, connector: Connector
) -> None:
    chat = teams_activity("message", service_url, team=None, channel=None, text="help")
    await post(chat)
    assert connector.texts() == [UNKNOWN_USER]


@pytest.mark.usefixtures("installed_team")
async def test_a_member_in_a_personal_chat_is_answered_without_a_channel(
    post: Post, service_url: str, connector: Connector
) -> None:
    chat = teams_activity("message", service_url, team=None, channel=None, text="my bugs")
    await post(chat)
    [card] = sent_cards(connector)
    assert "My bugs across channels" in text_of(card)


async def test_the_emulator_speaks_as_the_demo_user_in_the_demo_channel(
    post: Post, service_url: str, connector: Connector, factory: Factory
) -> None:
    async with factory.work() as uow:
        await demo.seed_demo(uow, session_ttl=timedelta(hours=1))
    response = await post(emulator_message(service_url, "bugs"))
    assert response.status == 200
    [card] = sent_cards(connector)
    assert "Bugs" in text_of(card)


async def test_the_emulator_without_the_demo_says_how_to_set_it_up(
    post: Post, service_url: str, connector: Connector
) -> None:
    await post(emulator_message(service_url, "bugs"))
    assert connector.texts() == [DEMO_MISSING]


async def test_an_unexpected_failure_answers_with_a_reference_and_no_trace(
    post: Post, service_url: str, connector: Connector, caplog: pytest.LogCaptureFixture
) -> None:
    connector.missing_team_details = True  # the install's roster fetch fails with a 404
    response = await post(installed(service_url))
    assert response.status == 200
    ref = response.headers["x-request-id"]
    assert connector.texts() == [f"Something went wrong (ref {ref})."]
    assert any(ref in record.getMessage() and record.exc_info for record in caplog.records)


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        (b"{not json", "application/json", 400),
        (b"[]", "application/json", 400),
        (b'{"text": "no type"}', "application/json", 400),
        (b'{"type": "message"}', "text/plain", 415),
    ],
)
async def test_a_body_that_is_not_an_activity_is_refused(
    bot: TestClient, body: bytes, content_type: str, status: int
) -> None:
    response = await bot.post("/api/messages", data=body, headers={"Content-Type": content_type})
    assert response.status == status
    assert "error" in await response.json()

"""Teams may add the app to someone's personal scope before any team roster names them: the chat
is kept, they are greeted, and once a roster names them their notifications reach it without
their typing anything; every reason a personal message is not sent is said as it is."""

import logging

import pytest

from bot.discussions.personal import NO_CHAT
from tests.cards.samples import text_of
from tests.notifications.conftest import Office
from tests.teams.activities import ADA, TEAM, personal_chat_id, personal_installed, teams_activity
from tests.teams.bot import sent_cards
from tests.teams.connector import TeamsMember

NIA = TeamsMember("0a0a0a0a-0000-4000-8000-0000000000e5", "nia@contoso.test", "Nia Okafor")


def joined(office: Office, who: TeamsMember) -> dict:
    """Teams' conversationUpdate when `who` joins Team A."""
    office.connector.members.append(who)
    return teams_activity(
        "conversationUpdate",
        office.service_url,
        channel=TEAM,
        event_type="teamMemberAdded",
        membersAdded=[{"id": who.account["id"], "aadObjectId": who.object_id}],
    )


async def test_a_personal_install_before_the_roster_is_kept_greeted_and_used_later(
    office: Office, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        await office.teams(personal_installed(office.service_url, NIA))
    assert any(
        NIA.object_id in line and "we know no user with this Entra id yet" in line
        for line in caplog.messages
    )
    [greeting] = sent_cards(office.connector)
    [sent] = office.connector.sent()
    assert sent.path.startswith(f"/v3/conversations/{personal_chat_id(NIA)}/activities")
    assert "help" in text_of(greeting)

    await office.teams(joined(office, NIA))
    office.connector.calls.clear()
    ada = await office.member(ADA)
    bug = await office.bug(ada, name="Checkout is down")
    await office.assign(ada, bug["_id"], NIA)
    await office.work_off()
    [card] = office.personal_cards(NIA)
    assert f"Ada Lovelace assigned you Bug #{bug['internalId']}" in text_of(card)


async def test_a_known_person_adding_the_app_is_greeted(office: Office) -> None:
    await office.teams(personal_installed(office.service_url, ADA))
    [greeting] = sent_cards(office.connector)
    assert "help" in text_of(greeting)


async def test_no_chat_says_no_chat_is_stored(office: Office) -> None:
    assert NO_CHAT.startswith("no personal chat stored")
    assert "not in their personal scope" not in NO_CHAT


async def test_teams_refusing_a_personal_message_is_said_as_such(
    office: Office, caplog: pytest.LogCaptureFixture
) -> None:
    await office.teams(personal_installed(office.service_url, NIA))
    await office.teams(joined(office, NIA))
    ada = await office.member(ADA)
    bug = await office.bug(ada)
    office.connector.refusals.append((403, {}))
    with caplog.at_level(logging.INFO):
        await office.assign(ada, bug["_id"], NIA)
        await office.work_off()
    assert any(
        "Teams refused the message to the 1:1 chat" in line and "403" in line
        for line in caplog.messages
    )

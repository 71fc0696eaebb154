"""`assign bug 4 to Grace`, `unassign bug 4 from Grace`: teammates named as people name them,
found on the channel's team by display name (any case, the whole name or some of its words);
namesakes are asked about."""

from dataclasses import replace

import pytest
from aiohttp.test_utils import TestClient

from tests.cards.samples import action, actions, said, text_of
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import ADA, GRACE, GROUP_CHAT, LIN
from tests.teams.bot import Chat, facts, rest_items
from tests.teams.connector import Connector, TeamsMember

GRACE_KELLY = TeamsMember(
    "0a0a0a0a-0000-4000-8000-0000000000e5", "kelly@contoso.test", "Grace Kelly"
)


@pytest.fixture
def connector() -> Connector:
    """Team A with two Graces."""
    return Connector(
        team_id=TEAM,
        channels={TEAM: None, CHANNEL: "Bugs"},
        members=[ADA, GRACE, LIN, GRACE_KELLY],
    )


async def assignees(bot: TestClient, factory: Factory) -> list[str]:
    [stored] = await rest_items(bot, factory, GRACE)
    return [person["displayName"] for person in stored["assignedTo"]]


@pytest.mark.parametrize(
    "said_as",
    ["Grace Hopper", "grace hopper", "GRACE HOPPER", "Hopper", "@Grace Hopper"],
)
async def test_a_teammate_is_found_by_display_name(
    chat: Chat, bot: TestClient, factory: Factory, said_as: str
) -> None:
    await chat.say("new bug First")
    card = await chat.say(f"assign bug 1 to {said_as}")
    assert said(card) == "Ada Lovelace assigned #1 to Grace Hopper"
    assert await assignees(bot, factory) == [GRACE.name]


async def test_the_path_form_takes_a_name_too(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    assert facts(await chat.say("bug/update/1/assigned/lin"))["Assigned to"] == LIN.name
    assert await assignees(bot, factory) == [LIN.name]


async def test_a_whole_name_names_one_of_two_namesakes(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    """`Grace` names both Graces; `grace kelly` names her alone."""
    await chat.say("new bug First")
    await chat.say("assign bug 1 to grace kelly")
    assert await assignees(bot, factory) == [GRACE_KELLY.name]


async def test_two_matches_ask_which_one_and_the_answer_assigns(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    choice = await chat.say("assign bug 1 to Grace")
    assert "Several people on this team are called “Grace”: which one?" in text_of(choice)
    assert [found["title"] for found in actions(choice)] == [
        "Grace Hopper (grace@contoso.test)",
        "Grace Kelly (kelly@contoso.test)",
    ]
    assert await assignees(bot, factory) == []
    card = await chat.click(action(choice, "Grace Kelly (kelly@contoso.test)"))
    assert said(card) == "Ada Lovelace assigned #1 to Grace Kelly"
    assert await assignees(bot, factory) == [GRACE_KELLY.name]


async def test_unassign_asks_which_namesake_and_takes_that_one_off(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    await chat.say("assign bug 1 to grace hopper")
    await chat.say("assign bug 1 to grace kelly")
    choice = await chat.say("unassign bug 1 from Grace")
    assert "Several people on this team are called “Grace”: which one?" in text_of(choice)
    assert await assignees(bot, factory) == [GRACE.name, GRACE_KELLY.name]
    card = await chat.click(action(choice, "Grace Hopper (grace@contoso.test)"))
    assert said(card) == "Ada Lovelace unassigned Grace Hopper from #1"
    assert await assignees(bot, factory) == [GRACE_KELLY.name]


async def test_the_chosen_namesake_joins_the_others(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    await chat.say("assign bug 1 to Lin")
    choice = await chat.say("assign bug 1 to Grace")
    card = await chat.click(action(choice, "Grace Kelly (kelly@contoso.test)"))
    assert said(card) == "Ada Lovelace assigned #1 to Grace Kelly"
    assert await assignees(bot, factory) == [LIN.name, GRACE_KELLY.name]
    choice = await chat.say("bug/update/1/assigned/Grace")  # the path form: the only one
    card = await chat.click(action(choice, "Grace Hopper (grace@contoso.test)"))
    assert said(card) == "Ada Lovelace assigned #1 to Grace Hopper instead"
    assert await assignees(bot, factory) == [GRACE.name]


async def test_nobody_of_that_name_says_who_was_looked_for(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    said_back = await chat.line("assign bug 1 to Gracie")
    assert said_back == "Nobody on this team is called “Gracie”: check the name, or @mention them."
    assert await assignees(bot, factory) == []


async def test_a_member_of_another_team_is_nobody_here(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await factory.team("19:team-b@thread.tacv2", name="Team B")
    await factory.member("Bob Builder", team_id="19:team-b@thread.tacv2")
    await chat.say("new bug First")
    assert "Nobody on this team is called “Bob Builder”" in await chat.line(
        "assign bug 1 to Bob Builder"
    )
    assert await assignees(bot, factory) == []


async def test_in_a_group_chat_the_name_is_looked_for_in_the_items_team(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    group = replace(chat, group_chat=GROUP_CHAT)
    card = await group.say("assign bug 1 to lin chen")
    assert said(card) == "Ada Lovelace assigned #1 to Lin Chen"
    assert await assignees(bot, factory) == [LIN.name]

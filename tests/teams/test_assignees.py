"""`assign bug 4 to Grace` adds Grace to the assignees, keeping the others; `unassign bug 4 from
Grace` takes her off; the path form `bug/update/4/assigned/Grace` makes her the only one. Each
answer says what happened, or why nothing did."""

import pytest
from aiohttp.test_utils import TestClient

from bot.directory.users import remove_member
from tests.cards.samples import action, said, text_of
from tests.factories import TEAM, Factory
from tests.teams.activities import ADA, GRACE, LIN
from tests.teams.bot import Chat, facts, rest_items
from tests.teams.connector import Connector, TeamsMember


async def assignees(bot: TestClient, factory: Factory, of: str = "bug") -> list[str]:
    [stored] = await rest_items(bot, factory, GRACE, of)
    return [person["displayName"] for person in stored["assignedTo"]]


@pytest.fixture
async def assigned_to_lin(chat: Chat) -> Chat:
    """Bug #1, assigned to Lin."""
    await chat.say("new bug First")
    await chat.say("assign bug 1 to Lin Chen")
    return chat


async def test_assign_adds_to_the_assignees_keeping_the_others(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await assigned_to_lin.say("assign bug 1 to Grace")
    assert said(card) == "Ada Lovelace assigned #1 to Grace Hopper"
    assert facts(card)["Assigned to"] == f"{LIN.name}, {GRACE.name}"
    card = await assigned_to_lin.say("assign bug 1 to me")
    assert said(card) == "Ada Lovelace assigned themselves to #1"
    assert await assignees(bot, factory) == [LIN.name, GRACE.name, ADA.name]


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("assign bug 1 to Lin", "Lin Chen is already assigned to #1"),
        ("assign bug 1 to lin@contoso.test", "Lin Chen is already assigned to #1"),
        ("bug/update/1/assigned/lin", "Lin Chen is already assigned to #1"),
        ("unassign bug 1 from Grace Hopper", "Grace Hopper is not assigned to #1"),
        ("unassign bug 1 from me", "Ada Lovelace is not assigned to #1"),
    ],
)
async def test_a_change_already_made_says_why_nothing_changed(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory, command: str, line: str
) -> None:
    card = await assigned_to_lin.say(command)
    assert said(card) == line
    assert facts(card)["Assigned to"] == LIN.name
    assert await assignees(bot, factory) == [LIN.name]


async def test_a_mention_assigns_and_unassigns(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await assigned_to_lin.say(f"assign bug 1 to <at>{GRACE.name}</at>", people=(GRACE,))
    assert said(card) == "Ada Lovelace assigned #1 to Grace Hopper"
    assert await assignees(bot, factory) == [LIN.name, GRACE.name]
    card = await assigned_to_lin.say(f"unassign bug 1 from <at>{LIN.name}</at>", people=(LIN,))
    assert said(card) == "Ada Lovelace unassigned Lin Chen from #1"
    assert await assignees(bot, factory) == [GRACE.name]


async def test_unassign_takes_one_off_and_keeps_the_others(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    await assigned_to_lin.say("assign bug 1 to grace@contoso.test")
    await assigned_to_lin.say("assign bug 1 to me")
    card = await assigned_to_lin.say("unassign bug 1 from Grace")
    assert said(card) == "Ada Lovelace unassigned Grace Hopper from #1"
    assert facts(card)["Assigned to"] == f"{LIN.name}, {ADA.name}"
    card = await assigned_to_lin.say("Unassign Bug #1 From me")
    assert said(card) == "Ada Lovelace unassigned themselves from #1"
    assert await assignees(bot, factory) == [LIN.name]
    card = await assigned_to_lin.say("unassign bug 1 from lin@contoso.test")
    assert facts(card)["Assigned to"] == "Nobody"
    assert await assignees(bot, factory) == []


async def test_the_path_form_makes_the_person_the_only_assignee(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    await assigned_to_lin.say("assign bug 1 to Grace")
    card = await assigned_to_lin.say("bug/update/1/assigned/me")
    assert said(card) == "Ada Lovelace assigned themselves to #1 instead"
    assert await assignees(bot, factory) == [ADA.name]


async def test_tasks_take_the_same_forms(chat: Chat, bot: TestClient, factory: Factory) -> None:
    await chat.say("new task Release notes")
    await chat.say("assign task 1 to Grace")
    await chat.say("assign task 1 to Lin")
    card = await chat.say("unassign task 1 from Grace")
    assert said(card) == "Ada Lovelace unassigned Grace Hopper from #1"
    assert await assignees(bot, factory, "task") == [LIN.name]


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("unassign bug 1 from Gracie", "Nobody on this team is called “Gracie”"),
        ("assign bug 1 to Gracie", "Nobody on this team is called “Gracie”"),
        ("unassign bug 1 from nobody@else.test", "'nobody@else.test' is not a member of this team"),
        ("unassign bug 9 from Lin", "There is no bug #9 in this channel."),
    ],
)
async def test_someone_unknown_is_one_line_and_changes_nothing(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory, command: str, line: str
) -> None:
    assert line in await assigned_to_lin.line(command)
    assert await assignees(bot, factory) == [LIN.name]


@pytest.mark.parametrize("who", ["Lin", "lin@contoso.test", f"<at>{LIN.name}</at>"])
async def test_someone_who_left_the_team_can_still_be_taken_off(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory, who: str
) -> None:
    await assigned_to_lin.say("assign bug 1 to Grace")
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM, user_ref=LIN.upn)
    card = await assigned_to_lin.say("assign bug 1 to me")  # Lin stays while others join
    assert facts(card)["Assigned to"] == f"{LIN.name}, {GRACE.name}, {ADA.name}"
    card = await assigned_to_lin.say(f"unassign bug 1 from {who}", people=(LIN,))
    assert said(card) == "Ada Lovelace unassigned Lin Chen from #1"
    assert await assignees(bot, factory) == [GRACE.name, ADA.name]
    line = await assigned_to_lin.line("assign bug 1 to lin@contoso.test")
    assert line == "assignedTo: 'lin@contoso.test' is not a member of this team"


async def test_unassigning_someone_of_another_tenant_never_names_them(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    await factory.team("19:team-b@thread.tacv2", name="Team B", tenant_id="tenant-b")
    bob = (await factory.member("Bob", team_id="19:team-b@thread.tacv2")).user
    mentioned = TeamsMember(bob.source_id, "who@knows.test", "Bobby")
    line = await assigned_to_lin.line("unassign bug 1 from <at>Bobby</at>", people=(mentioned,))
    assert line == "assignedTo: 'Bobby' is not a member of this team"
    line = await assigned_to_lin.line(f"unassign bug 1 from {bob.source_id}")
    assert line == f"assignedTo: '{bob.source_id}' is not a member of this team"
    assert await assignees(bot, factory) == [LIN.name]


async def test_in_the_personal_chat_the_items_channel_is_found(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    card = await assigned_to_lin.say("unassign bug 1 from Lin", personal=True)
    assert said(card) == "Ada Lovelace unassigned Lin Chen from #1"
    await assigned_to_lin.say("new bug Elsewhere", channel=connector.team_id)
    choice = await assigned_to_lin.say("assign bug 1 to Grace", personal=True)
    assert "Several channels have a bug #1: which one?" in text_of(choice)
    card = await assigned_to_lin.click(action(choice, "Team A › Bugs"))
    assert said(card) == "Ada Lovelace assigned #1 to Grace Hopper"
    assert await assignees(bot, factory) == [GRACE.name]


async def test_a_typo_offers_unassign_and_help_all_lists_it(
    assigned_to_lin: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await assigned_to_lin.say("unasign bug 1 from Lin")
    assert "Did you mean " in text_of(card)
    fixed = await assigned_to_lin.click(action(card, "unassign bug 1 from Lin"))
    assert said(fixed) == "Ada Lovelace unassigned Lin Chen from #1"
    assert await assignees(bot, factory) == []
    assert "unassign bug {id} from {name}" in text_of(await assigned_to_lin.say("help all"))
    assert "unassign" not in text_of(await assigned_to_lin.say("help"))

"""Malformed clicks and commands (wrong types, missing fields, unknown verbs, ids of other teams
and channels): each is answered with a clear line, or with the card again and the problem beside
its cause, never "Something went wrong", and changes nothing."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.cards.samples import action, actions, beside_input, inputs, text_of
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import GRACE, card_action, invoke, mention
from tests.teams.bot import ADAPTIVE, Chat, facts, rest_items, sent_cards

TEAM_B, CHANNEL_B = "19:team-b@thread.tacv2", "19:channel-b@thread.tacv2"
FAILED = "Something went wrong"
STALE = "This card is out of date: run the command again."
DROP = object()  # a field left out of the button's data


@dataclass(frozen=True)
class Ids:
    """What the cases build their data from: the bug's ids, and ids the caller may not use."""

    item: str  # Team A's Bugs channel's bug #1
    general_item: str  # a bug of Team A's General channel
    other_team_item: str  # a bug of Team B, which Ada is not on


@dataclass(frozen=True)
class Click:
    """A button's data, made from a real item's, then changed; what the answer must say."""

    verb: Any
    data: Callable[[Ids], dict[str, Any]]
    says: str
    # Where it says it: None, anywhere on the card; an input's id, right beside that input.
    beside: str | None = None


def item(ids: Ids, **changes: Any) -> dict[str, Any]:
    data = {"kind": "bug", "itemId": ids.item, "channelId": CHANNEL, **changes}
    return {key: value for key, value in data.items() if value is not DROP}


def listing(**changes: Any) -> dict[str, Any]:
    data = {"kind": "bug", "channelId": CHANNEL, "command": "bugs", "skip": 0, **changes}
    return {key: value for key, value in data.items() if value is not DROP}


CLICKS = {
    # Verbs.
    "unknown verb": Click("item.explode", item, STALE),
    "no verb": Click(None, item, STALE),
    "verb not text": Click(5, item, STALE),
    # Showing an item.
    "item id missing": Click("item.show", lambda ids: item(ids, itemId=DROP), STALE),
    "item id a number": Click("item.show", lambda ids: item(ids, itemId=5), STALE),
    "unknown kind": Click("item.show", lambda ids: item(ids, kind="epic"), STALE),
    "channel of another team": Click(
        "item.show", lambda ids: item(ids, channelId=CHANNEL_B), "You are not a member of team"
    ),
    "unknown channel": Click(
        "item.show", lambda ids: item(ids, channelId="19:nowhere"), "is not known"
    ),
    "item of another channel": Click(
        "item.show", lambda ids: item(ids, itemId=ids.general_item), "not found"
    ),
    "item of another team": Click(
        "item.show", lambda ids: item(ids, itemId=ids.other_team_item), "not found"
    ),
    "item id not an id": Click("item.show", lambda ids: item(ids, itemId="x' or 1=1"), "not found"),
    # Setting a status: the card again, the problem beside the status.
    "status not text": Click(
        "item.setStatus", lambda ids: item(ids, status=7), "valid string", "status"
    ),
    "status empty": Click(
        "item.setStatus", lambda ids: item(ids, status=""), "Choose a status", "status"
    ),
    "status missing": Click("item.setStatus", item, "Choose a status", "status"),
    "status unknown": Click(
        "item.setStatus", lambda ids: item(ids, status="Shipped"), "'Shipped' does not", "status"
    ),
    "status too long": Click(
        "item.setStatus", lambda ids: item(ids, status="x" * 300), "at most 255", "status"
    ),
    "status with a NUL": Click(
        "item.setStatus", lambda ids: item(ids, status="a\x00b"), "NUL character", "status"
    ),
    "status of another team's item": Click(
        "item.setStatus",
        lambda ids: item(ids, itemId=ids.other_team_item, status="In Progress"),
        "not found",
    ),
    # Other buttons on an item.
    "assign in another team's channel": Click(
        "item.assignToMe", lambda ids: item(ids, channelId=CHANNEL_B), "not a member of team"
    ),
    "edit an item of another channel": Click(
        "item.edit", lambda ids: item(ids, itemId=ids.general_item), "not found"
    ),
    "discuss without a channel": Click(
        "item.discuss", lambda ids: item(ids, channelId=DROP), STALE
    ),
    # The form's save: the form again, as typed, the problem beside its input.
    "title empty": Click(
        "item.save",
        lambda ids: item(ids, title="", description="Kept"),
        "A title is required",
        "title",
    ),
    "title blank": Click(
        "item.save", lambda ids: item(ids, title="   "), "A title is required", "title"
    ),
    "title missing": Click("item.save", item, "A title is required", "title"),
    "title not text": Click("item.save", lambda ids: item(ids, title=5), "valid string", "title"),
    "title with a NUL": Click(
        "item.save", lambda ids: item(ids, title="a\x00b"), "NUL character", "title"
    ),
    "due date not a date": Click(
        "item.save", lambda ids: item(ids, title="T", dueDate="not-a-date"), "ISO 8601", "dueDate"
    ),
    "due date a number": Click(
        "item.save", lambda ids: item(ids, title="T", dueDate=5), "valid string", "dueDate"
    ),
    "assignees not text": Click(
        "item.save", lambda ids: item(ids, title="T", assignees=3), "valid list", "assignees"
    ),
    "assignee unknown": Click(
        "item.save",
        lambda ids: item(ids, title="T", assignees="nobody"),
        "'nobody' is not a member of this team",
        "assignees",
    ),
    "form status unknown": Click(
        "item.save", lambda ids: item(ids, title="T", status="Shipped"), "does not exist", "status"
    ),
    "priority too long": Click(
        "item.save", lambda ids: item(ids, title="T", priority="x" * 300), "at most 255", "priority"
    ),
    "form without a channel": Click(
        "item.save", lambda ids: item(ids, title="T", channelId=DROP), STALE
    ),
    "form of another channel's item": Click(
        "item.save", lambda ids: item(ids, title="T", itemId=ids.general_item), "not found"
    ),
    # Pages of a list.
    "page before the first": Click("list.more", lambda _ids: listing(skip=-1), STALE),
    "page not a number": Click("list.more", lambda _ids: listing(skip="x"), STALE),
    "page past any database": Click("list.more", lambda _ids: listing(skip=2**40), STALE),
    "page without a command": Click("list.more", lambda _ids: listing(command=DROP), STALE),
    "page command not text": Click("list.more", lambda _ids: listing(command=5), STALE),
    "page of no list": Click("list.more", lambda _ids: listing(command="dance"), "What I can do"),
    "page of a bad filter": Click(
        "list.more", lambda _ids: listing(command="bugs/name/a\x00b"), "not valid text"
    ),
    "page in another team's channel": Click(
        "list.more", lambda _ids: listing(channelId=CHANNEL_B), "not a member of team"
    ),
    # Bulk edit.
    "bulk edit with nothing ticked": Click(
        "list.bulkEdit", lambda _ids: listing(), "Select at least one row"
    ),
    "bulk edit without a channel": Click(
        "list.bulkEdit", lambda _ids: listing(channelId=DROP), STALE
    ),
    "bulk apply to nothing": Click("bulk.apply", lambda _ids: listing(ids=[]), STALE),
    "bulk apply ids not a list": Click("bulk.apply", lambda ids: listing(ids=ids.item), STALE),
    "bulk apply ids not text": Click("bulk.apply", lambda _ids: listing(ids=[5]), STALE),
    "bulk apply to another team's item": Click(
        "bulk.apply",
        lambda ids: listing(ids=[ids.other_team_item], status="Completed"),
        "0 of 1 bugs updated",
    ),
    "bulk apply an unknown status": Click(
        "bulk.apply",
        lambda ids: listing(ids=[ids.item], status="Shipped"),
        "'Shipped' does not exist",
        "status",
    ),
    "bulk apply to an unknown person": Click(
        "bulk.apply",
        lambda ids: listing(ids=[ids.item], assignee="nobody"),
        "'nobody' is not a member of this team",
        "assignee",
    ),
    "bulk edit of too many": Click(
        "list.bulkEdit",
        lambda ids: listing(**{f"select:{n:024x}": "true" for n in range(501)}),
        "Select at most 500 rows at once.",
    ),
    "bulk apply to too many": Click("bulk.apply", lambda ids: listing(ids=[ids.item] * 501), STALE),
    # Commands run from buttons.
    "command missing": Click("command.run", lambda _ids: {}, STALE),
    "command not text": Click("command.run", lambda _ids: {"command": 5}, STALE),
    "command refused": Click(
        "command.run", lambda _ids: {"command": "bug 99"}, "There is no bug #99 in this channel."
    ),
    "command in another team's channel": Click(
        "command.run",
        lambda _ids: {"command": "bugs", "channelId": CHANNEL_B, "teamId": TEAM_B},
        "not a member of team",
    ),
    "command in a channel of another team than named": Click(
        "command.run",
        lambda _ids: {"command": "bugs", "channelId": CHANNEL, "teamId": TEAM_B},
        "not a member of team",
    ),
}


@pytest.fixture
async def ids(chat: Chat, bot: TestClient, factory: Factory) -> Ids:
    """Bug #1 in Bugs (Ada's channel), a bug in General, and one in Team B, which Ada is not on."""
    await chat.say("new bug First")
    await chat.say("new bug In General", channel=TEAM)
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="B")
    bob = await factory.member("Bob", team_id=TEAM_B)
    created = await bot.post(
        "/odata/bugs", json={"name": "Team B's"}, headers=bob.in_channel(TEAM_B, CHANNEL_B)
    )
    assert created.status == 201, await created.text()
    [first] = await rest_items(bot, factory, GRACE)
    [general] = await rest_items(bot, factory, GRACE, channel=TEAM)
    return Ids(first["_id"], general["_id"], (await created.json())["_id"])


async def unchanged(bot: TestClient, factory: Factory) -> None:
    [stored] = await rest_items(bot, factory, GRACE)
    assert (stored["name"], stored["status"], stored["assignedTo"]) == ("First", "Not Started", [])


@pytest.mark.parametrize("case", CLICKS)
async def test_a_malformed_click_is_answered_clearly_and_changes_nothing(
    chat: Chat, bot: TestClient, factory: Factory, ids: Ids, case: str
) -> None:
    click = CLICKS[case]
    card = await chat.click({"verb": click.verb, "data": click.data(ids)})
    shown = beside_input(card, click.beside) if click.beside else text_of(card)
    assert click.says in shown and FAILED not in text_of(card)
    await unchanged(bot, factory)


@pytest.mark.parametrize(
    "value",
    [
        {"action": "item.show"},
        {"action": {"type": "Action.Execute", "verb": "item.show", "data": ["x"]}},
        {"action": {"verb": "item.show", "data": "itemId"}},
        {},
        ["not", "an", "object"],
    ],
)
async def test_an_invoke_of_the_wrong_shape_says_the_card_is_out_of_date(
    chat: Chat, value: Any
) -> None:
    response = await chat.post(invoke(chat.service_url, "adaptiveCard/action", value))
    body = await response.json()
    assert (response.status, body["type"]) == (200, ADAPTIVE)
    assert text_of(body["value"]) == STALE


async def test_a_refused_item_click_comes_back_on_the_card_with_its_buttons(
    chat: Chat, ids: Ids
) -> None:
    card = await chat.click({"verb": "item.setStatus", "data": item(ids, status="Shipped")})
    assert facts(card)["Status"] == "Not Started"
    assert {"Set status", "Assign to me", "Edit"} <= {found.get("title") for found in actions(card)}


async def test_a_refusal_with_no_card_to_show_again_leads_to_the_list(chat: Chat, ids: Ids) -> None:
    card = await chat.click({"verb": "item.edit", "data": item(ids, itemId=ids.general_item)})
    listed = await chat.click(action(card, "Bugs"))
    assert "First" in text_of(listed) and "In General" not in text_of(listed)


async def test_a_form_comes_back_with_what_was_typed(chat: Chat, ids: Ids) -> None:
    typed = {"title": "", "description": "Steps kept", "priority": "High", "dueDate": "2026-12-24"}
    form = await chat.click({"verb": "item.save", "data": item(ids, **typed)})
    fields = inputs(form)
    assert fields["description"]["value"] == "Steps kept" and "value" not in fields["title"]
    assert (fields["priority"]["value"], fields["dueDate"]["value"]) == ("High", "2026-12-24")
    assert action(form, "Save bug")["data"]["itemId"] == ids.item


async def test_a_button_of_a_card_from_another_team_is_refused_in_a_clear_line(
    chat: Chat, ids: Ids
) -> None:
    """The whole activity from Team B's channel, where Ada is no member: her roster is refused."""
    button = {"verb": "item.show", "data": item(ids, channelId=CHANNEL_B)}
    activity = card_action(chat.service_url, button)
    activity["channelData"]["team"]["id"] = TEAM_B
    activity["channelData"]["channel"]["id"] = CHANNEL_B
    body = await (await chat.post(activity)).json()
    assert "only work for members of this team" in text_of(body["value"])


COMMANDS = {
    "a field with no value": ("bug/update/1/status/", "What I can do"),
    "assign to no one": ("assign bug 1 to", "What I can do"),
    "a number past the database's": ("bug 2147483648", "What I can do"),
    "no such number": ("assign bug 99 to Grace", "There is no bug #99 in this channel."),
    "no such kind's number": ("close task 1", "There is no task #1 in this channel."),
    "clone of nothing": ("bug/clone/99", "There is no bug #99 in this channel."),
    "discuss nothing": ("discuss bug 99", "There is no bug #99 in this channel."),
    "nobody of that name": ("assign bug 1 to Nobody Here", "called “Nobody Here”"),
    "someone of another team": ("assign bug 1 to Bob", "Nobody on this team is called “Bob”"),
    "a title with a NUL": ("new bug a\x00b", "name: must not contain the NUL character"),
    "a status with a NUL": ("bug/update/1/status/a\x00b", "status: must not contain the NUL"),
    "a priority too long": ("bug/update/1/priority/" + "x" * 256, "at most 255 characters"),
    "a filter with a NUL": ("bugs/assigned/a\x00b", "not valid text"),
    "a long text": ("bugs " * 2000, "What I can do"),
}


@pytest.mark.parametrize("case", COMMANDS)
async def test_a_malformed_command_is_answered_clearly_and_changes_nothing(
    chat: Chat, bot: TestClient, factory: Factory, ids: Ids, case: str
) -> None:
    text, says = COMMANDS[case]
    chat.connector.calls.clear()
    response = await chat.post(mention(chat.service_url, text))
    assert response.status == 200
    answered = "\n".join([*chat.connector.texts(), *map(text_of, sent_cards(chat.connector))])
    assert says in answered and FAILED not in answered
    await unchanged(bot, factory)

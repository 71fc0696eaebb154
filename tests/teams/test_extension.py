"""The messaging extension: search, create a bug from a message, and unfurl item links."""

from datetime import timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.fields.defaults import STATUSES
from bot.teams.actions.messaging_extension import IN_A_CHANNEL
from tests.cards.samples import actions, assert_valid, beside_input, inputs, text_of, values
from tests.factories import CHANNEL, Factory
from tests.teams.activities import GRACE, GROUP_CHAT, MALLORY, installed, invoke
from tests.teams.bot import ADAPTIVE, Chat, Post, facts, rest_items, sent_cards
from tests.teams.connector import Connector

PUBLIC = "http://127.0.0.1:3978"  # the test settings' PUBLIC_URL default
THUMBNAIL = "application/vnd.microsoft.card.thumbnail"
TEAM_B, CHANNEL_B = "19:team-b@thread.tacv2", "19:channel-b@thread.tacv2"


@pytest.fixture
async def chat(post: Post, service_url: str, connector: Connector) -> Chat:
    assert (await post(installed(service_url))).status == 200
    await Chat(post, service_url, connector).say("new bug Login fails on Safari")
    await Chat(post, service_url, connector).say("new bug Printing is slow")
    return Chat(post, service_url, connector)


async def _invoke(chat: Chat, name: str, value: dict, **fields: object) -> Any:
    """The invoke's answer: its JSON body, or None for a 200 without one."""
    response = await chat.post(invoke(chat.service_url, name, value, **fields))
    assert response.status == 200
    return await response.json() if await response.read() else None


def search(text: str, command: str = "findBug") -> dict:
    return {
        "commandId": command,
        "parameters": [{"name": "query", "value": text}],
        "queryOptions": {"skip": 0, "count": 25},
    }


async def test_search_by_title_returns_previews_and_item_cards(chat: Chat) -> None:
    body = await _invoke(chat, "composeExtension/query", search("safari"))
    result = body["composeExtension"]
    assert result["type"] == "result" and result["attachmentLayout"] == "list"
    [found] = result["attachments"]
    assert found["contentType"] == ADAPTIVE and "Login fails on Safari" in text_of(found["content"])
    assert_valid(found["content"])
    assert found["preview"]["contentType"] == THUMBNAIL
    preview = found["preview"]["content"]
    assert preview["title"] == "#1 Login fails on Safari"
    assert preview["text"] == "Not Started · Nobody"


async def test_tapping_a_result_inserts_its_card_and_opens_nothing(chat: Chat) -> None:
    """Teams inserts a result's card when its preview is tapped; a preview with a tap action of
    its own runs that instead (a link, which Teams' simulator refuses to open)."""
    body = await _invoke(chat, "composeExtension/query", search("i"))
    results = body["composeExtension"]["attachments"]
    assert len(results) == 2
    for found in results:
        assert set(found) == {"contentType", "content", "preview"}
        assert "tap" not in found["preview"]["content"]
        assert "buttons" not in found["preview"]["content"]


async def test_search_by_number(chat: Chat) -> None:
    [found] = (await _invoke(chat, "composeExtension/query", search("#2")))["composeExtension"][
        "attachments"
    ]
    assert found["preview"]["content"]["title"] == "#2 Printing is slow"


def first_open(command: str = "findBug") -> dict:
    """What Teams sends when a search opens (the manifest's `initialRun`): no text."""
    return {
        "commandId": command,
        "parameters": [{"name": "initialRun", "value": "true"}],
        "queryOptions": {"skip": 0, "count": 25},
    }


def titles(body: dict) -> list[str]:
    return [
        found["preview"]["content"]["title"] for found in body["composeExtension"]["attachments"]
    ]


async def test_the_first_open_shows_the_callers_items_most_recently_changed_first(
    chat: Chat, clock: FrozenClock
) -> None:
    await chat.say("new bug Export drops a row")
    await chat.say("bug/update/1/assigned/me")
    clock.advance(timedelta(minutes=1))
    await chat.say("bug/update/3/assigned/me")
    clock.advance(timedelta(minutes=1))
    await chat.say("bug/update/2/assigned/me", sender=GRACE)  # Grace's, not Ada's
    await chat.say("bug/update/1/priority/high")  # changed last: first
    for opened in (first_open(), search("")):
        body = await _invoke(chat, "composeExtension/query", opened)
        assert body["composeExtension"]["type"] == "result"
        assert titles(body) == ["#1 Login fails on Safari", "#3 Export drops a row"]
        for found in body["composeExtension"]["attachments"]:
            assert_valid(found["content"])
    assert titles(await _invoke(chat, "composeExtension/query", first_open("findTask"))) == []
    grace = await _invoke(chat, "composeExtension/query", first_open(), sender=GRACE)
    assert titles(grace) == ["#2 Printing is slow"]


async def test_search_text_is_only_text_and_cards_show_the_kinds_statuses(chat: Chat) -> None:
    [found] = (await _invoke(chat, "composeExtension/query", search("G IS S")))["composeExtension"][
        "attachments"
    ]
    assert found["preview"]["content"]["title"] == "#2 Printing is slow"
    choices = inputs(found["content"])["status"]["choices"]
    assert [choice["title"] for choice in choices] == [status.name for status in STATUSES]
    nothing = await _invoke(chat, "composeExtension/query", search("x' or 'a' eq 'a"))
    assert nothing["composeExtension"]["attachments"] == []


async def test_search_by_someone_not_in_the_team_is_refused(chat: Chat) -> None:
    body = await _invoke(chat, "composeExtension/query", search(""), sender=MALLORY)
    assert body["composeExtension"]["type"] == "message"


MESSAGE = {
    "id": "1700000000555",
    "body": {
        "contentType": "html",
        "content": "<p>Checkout <b>crashes</b> &amp; burns</p><p>On iOS 18</p>",
    },
}


async def test_fetch_task_opens_the_form_prefilled_from_the_message(chat: Chat) -> None:
    value = {"commandId": "createBugFromMessage", "messagePayload": MESSAGE}
    body = await _invoke(chat, "composeExtension/fetchTask", value)
    task = body["task"]
    assert task["type"] == "continue" and task["value"]["title"] == "Create a bug"
    card = task["value"]["card"]["content"]
    assert_valid(card)
    assert inputs(card)["title"]["value"] == "Checkout crashes & burns"
    assert inputs(card)["description"]["value"] == "Checkout crashes & burns\nOn iOS 18"


async def test_submit_action_creates_and_replies_in_the_thread(
    chat: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    value = {"commandId": "createBugFromMessage", "messagePayload": MESSAGE}
    form = (await _invoke(chat, "composeExtension/fetchTask", value))["task"]["value"]["card"]
    submit = next(a for a in form["content"]["actions"] if a["type"] == "Action.Submit")
    connector.calls.clear()
    data = {**submit["data"], "title": "Checkout crashes", "description": "On iOS 18"}
    body = await _invoke(chat, "composeExtension/submitAction", {**value, "data": data})
    assert body is None  # closes the dialog: no body
    [card] = sent_cards(connector)
    assert "Checkout crashes" in text_of(card)
    [reply] = connector.sent()
    assert reply.path.startswith(f"/v3/conversations/{CHANNEL};messageid=1700000000555")
    stored = {item["name"]: item for item in await rest_items(bot, factory, GRACE)}
    assert stored["Checkout crashes"]["body"] == "On iOS 18"


TYPED = {"description": "On iOS 18", "priority": "High"}


@pytest.mark.parametrize(
    ("data", "field", "reason"),
    [
        ({**TYPED, "title": ""}, "title", "A title is required"),
        ({**TYPED, "title": "   "}, "title", "A title is required"),
        ({**TYPED}, "title", "A title is required"),
        ({**TYPED, "title": "Crash", "dueDate": "not-a-date"}, "dueDate", "“not-a-date”: must be"),
        ({**TYPED, "title": "Crash", "dueDate": "2026-02-30"}, "dueDate", "“2026-02-30”: must be"),
        ({**TYPED, "title": "Crash", "status": "Shipped"}, "status", "'Shipped' does not exist"),
        ({**TYPED, "title": "Crash", "severity": "Apocalyptic"}, "severity", "'Apocalyptic'"),
        ({**TYPED, "title": 42}, "title", "Input should be a valid string"),
        ({**TYPED, "title": "Crash", "dueDate": 20261201}, "dueDate", "valid string"),
        (None, "title", "A title is required"),  # no data at all
        ("title=Crash", "title", "A title is required"),  # data that is no object
    ],
)
async def test_a_bad_submit_keeps_the_dialog_open_on_the_form_as_typed(
    chat: Chat,
    bot: TestClient,
    factory: Factory,
    connector: Connector,
    data: object,
    field: str,
    reason: str,
) -> None:
    value: dict = {"commandId": "createBugFromMessage", "messagePayload": MESSAGE}
    if data is not None:
        value["data"] = data
    connector.calls.clear()
    body = await _invoke(chat, "composeExtension/submitAction", value)
    task = body["task"]
    assert task["type"] == "continue" and task["value"]["title"] == "Create a bug"
    card = task["value"]["card"]["content"]
    assert task["value"]["card"]["contentType"] == ADAPTIVE
    assert_valid(card)
    assert reason in beside_input(card, field)
    if isinstance(data, dict):  # what was typed is kept
        assert (inputs(card)["description"]["value"], inputs(card)["priority"]["value"]) == (
            "On iOS 18",
            "High",
        )
    # Still the dialog's form: its submit closes a dialog, and it creates a bug.
    submit = next(a for a in actions(card) if a["type"] == "Action.Submit")
    assert submit["data"]["verb"] == "item.save" and submit["data"]["kind"] == "bug"
    assert len(await rest_items(bot, factory, GRACE)) == 2
    assert connector.sent() == []


async def test_the_form_answered_again_creates_once_fixed(
    chat: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    value = {"commandId": "createBugFromMessage", "messagePayload": MESSAGE}
    bad = {"title": "Checkout crashes", "description": "On iOS 18", "dueDate": "soon"}
    task = (await _invoke(chat, "composeExtension/submitAction", {**value, "data": bad}))["task"]
    form = task["value"]["card"]["content"]
    assert inputs(form)["title"]["value"] == "Checkout crashes"
    submit = next(a for a in actions(form) if a["type"] == "Action.Submit")
    fixed = {**submit["data"], **values(form), "dueDate": "2026-12-01"}
    connector.calls.clear()
    assert await _invoke(chat, "composeExtension/submitAction", {**value, "data": fixed}) is None
    [card] = sent_cards(connector)
    assert facts(card)["Due"] == "2026-12-01"
    stored = {item["name"]: item for item in await rest_items(bot, factory, GRACE)}
    assert stored["Checkout crashes"]["body"] == "On iOS 18"


@pytest.mark.parametrize("where", [{"group_chat": GROUP_CHAT}, {"team": None, "channel": None}])
async def test_a_submit_from_outside_a_channel_says_where_to_use_it(
    chat: Chat, bot: TestClient, factory: Factory, where: dict
) -> None:
    data = {"title": "Checkout crashes"}
    value = {"commandId": "createBugFromMessage", "messagePayload": MESSAGE, "data": data}
    body = await _invoke(chat, "composeExtension/submitAction", value, **where)
    assert body == {"task": {"type": "message", "value": IN_A_CHANNEL}}
    assert len(await rest_items(bot, factory, GRACE)) == 2


async def test_a_pasted_item_link_unfurls_into_its_card(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    ids = {item["internalId"]: item["_id"] for item in await rest_items(bot, factory, GRACE)}
    body = await _invoke(chat, "composeExtension/queryLink", {"url": f"{PUBLIC}/bugs/{ids[2]}"})
    [found] = body["composeExtension"]["attachments"]
    assert "Printing is slow" in text_of(found["content"])
    assert_valid(found["content"])


NO_CARD = {"composeExtension": {"type": "result", "attachmentLayout": "list", "attachments": []}}


@pytest.mark.parametrize(
    "url",
    [
        f"{PUBLIC}/bugs/ffffffffffffffffffffffff",
        f"{PUBLIC}/bugs/not-an-id",
        f"{PUBLIC}/somewhere/else",
        "https://elsewhere.example.com/bugs/{bug}",  # another host's path that looks like ours
        f"{PUBLIC}/tasks/{{bug}}",  # a bug named as a task
        "",
    ],
)
async def test_an_unknown_or_foreign_link_unfurls_into_no_card(
    chat: Chat, bot: TestClient, factory: Factory, url: str
) -> None:
    [bug, *_] = await rest_items(bot, factory, GRACE)
    body = await _invoke(chat, "composeExtension/queryLink", {"url": url.format(bug=bug["_id"])})
    assert body == NO_CARD


async def test_a_link_to_an_item_the_caller_may_not_read_unfurls_into_no_card(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="Secret")
    bob = await factory.member("Bob", team_id=TEAM_B)
    response = await bot.post(
        "/odata/bugs",
        json={"name": "Merger plans leak"},
        headers=bob.in_channel(TEAM_B, CHANNEL_B),
    )
    assert response.status == 201
    url = f"{PUBLIC}/bugs/{(await response.json())['_id']}"
    assert await _invoke(chat, "composeExtension/queryLink", {"url": url}) == NO_CARD
    stranger = await _invoke(chat, "composeExtension/queryLink", {"url": url}, sender=MALLORY)
    assert stranger == NO_CARD

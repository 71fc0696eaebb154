"""What the console sends, checked against a stand-in for the app's bot endpoint: activities as
the Emulator sends them, each kind of button as Teams sends its click, and what the bot posts
back (replies, new threads, updates) shown at the turn it arrives."""

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpServer

from bot.cli.chat.connector import LocalConnector
from bot.cli.chat.console import ADAPTIVE, Console
from cards.layout import envelope, text_block

CARD = envelope(
    [text_block("Pick one"), {"type": "Input.Text", "id": "note", "label": "Note", "value": ""}],
    [
        {"type": "Action.Execute", "title": "Do", "verb": "do", "data": {"x": 1}},
        {"type": "Action.Submit", "title": "Send", "data": {"y": 2}},
        {"type": "Action.OpenUrl", "title": "Open", "url": "https://tracker.example.com/bugs/1"},
        {
            "type": "Action.ShowCard",
            "title": "More",
            "card": envelope([text_block("Inside")], [{"type": "Action.Submit", "title": "In"}]),
        },
    ],
)


class StandIn:
    """Records each activity; answers an invoke with a card, a message with a reply posted to
    its serviceUrl (the card above), as the bot does."""

    def __init__(self) -> None:
        self.posted: list[dict[str, Any]] = []

    async def messages(self, request: web.Request) -> web.Response:
        activity = await request.json()
        self.posted.append(activity)
        if activity["type"] == "invoke":
            replaced = envelope([text_block("Replaced")])
            return web.json_response({"statusCode": 200, "type": ADAPTIVE, "value": replaced})
        conversation = activity["conversation"]["id"]
        url = (
            f"{activity['serviceUrl']}/v3/conversations/{conversation}/activities/{activity['id']}"
        )
        reply = {"type": "message", "text": "Got it", "attachments": [_adaptive(CARD)]}
        async with aiohttp.ClientSession() as http, http.post(url, json=reply) as answer:
            assert answer.status == 200
        return web.Response(status=200)


def _adaptive(card: dict[str, Any]) -> dict[str, Any]:
    return {"contentType": ADAPTIVE, "content": card}


@pytest.fixture
def stand_in() -> StandIn:
    return StandIn()


@pytest.fixture
async def console(stand_in: StandIn, aiohttp_server: AiohttpServer) -> AsyncIterator[Console]:
    app = web.Application()
    app.router.add_post("/api/messages", stand_in.messages)
    server = await aiohttp_server(app)
    connector = LocalConnector()
    async with connector.serving() as service_url, aiohttp.ClientSession() as http:
        yield Console(http, str(server.make_url("")).rstrip("/"), service_url, connector)


async def test_a_line_is_a_message_as_the_emulator_sends_it(
    console: Console, stand_in: StandIn
) -> None:
    [answer] = await console.say("bugs")
    [sent] = stand_in.posted
    assert sent["type"] == "message" and sent["text"] == "bugs"
    assert sent["channelId"] == "emulator" and sent["serviceUrl"] == console.service_url
    assert sent["conversation"] == {"id": console.conversation_id}
    assert sent["from"]["role"] == "user" and "aadObjectId" not in sent["from"]
    assert "channelData" not in sent  # no tenant, team or channel: the demo's
    assert answer.lines == [
        "Got it",
        "Pick one",
        "Note: (empty)  [note]",
        "[1] Do",
        "[2] Send",
        "[3] Open",
        "[4] More",
    ]


async def test_each_kind_of_button_is_pressed_as_teams_sends_it(
    console: Console, stand_in: StandIn
) -> None:
    await console.say("bugs")
    [replaced] = await console.press(1, {"note": "soon"})
    assert replaced.lines == ["Replaced"]
    invoke = stand_in.posted[-1]
    assert invoke["type"] == "invoke" and invoke["name"] == "adaptiveCard/action"
    assert invoke["value"] == {
        "action": {"type": "Action.Execute", "verb": "do", "data": {"x": 1, "note": "soon"}},
        "trigger": "manual",
    }
    # The replacing card has no buttons: the last ones stay to be pressed.
    await console.press(2, {"Note": "later"})
    submitted = stand_in.posted[-1]
    assert submitted["type"] == "message" and submitted["value"] == {"y": 2, "note": "later"}
    count = len(stand_in.posted)
    assert (await console.press(3))[0].lines == ["Open https://tracker.example.com/bugs/1"]
    [inside] = await console.press(4)
    assert inside.lines == ["Inside", "[1] In"]
    assert len(stand_in.posted) == count  # neither sent anything


async def test_what_the_bot_posts_besides_replies_shows_at_the_next_turn(
    console: Console,
) -> None:
    async with aiohttp.ClientSession() as http:
        thread = {"channelData": {"channel": {"id": "19:c"}}, "activity": {"text": "New thread"}}
        async with http.post(f"{console.service_url}/v3/conversations", json=thread) as made:
            assert (await made.json())["id"].startswith("19:c;messageid=")
        update = {"type": "message", "attachments": [_adaptive(envelope([text_block("Now")]))]}
        url = f"{console.service_url}/v3/conversations/19:c/activities/7"
        async with http.put(url, json=update) as updated:
            assert updated.status == 200
    answers = await console.say("help")
    assert [answer.lines[0] for answer in answers] == [
        "New thread",
        "(changed an earlier message)",
        "Got it",
    ]

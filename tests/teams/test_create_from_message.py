""" "Create a bug from this message": the reply goes to the message's thread root, the dialog
closes as Teams expects, a bug is never reported failed once it exists, the bot's mention is
not part of the title."""

import logging
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.cards.samples import inputs, text_of
from tests.factories import CHANNEL, Factory
from tests.logged import captured
from tests.teams.activities import APP_ID, GRACE, installed, invoke
from tests.teams.bot import ADAPTIVE, Chat, Post, rest_items, sent_cards
from tests.teams.connector import Connector

ROOT, REPLY = "1700000000555", "1700000000777"
# A reply in a thread, as Teams gives it to the action: its own id, and its root's.
A_REPLY = {
    "id": REPLY,
    "replyToId": ROOT,
    "body": {"contentType": "html", "content": "<p>Checkout crashes on iOS 18</p>"},
}
# Where Teams runs the action on that reply: the thread's conversation.
IN_THE_THREAD = {
    "conversation": {
        "id": f"{CHANNEL};messageid={ROOT}",
        "conversationType": "channel",
        "isGroup": True,
    }
}


@pytest.fixture
async def chat(post: Post, service_url: str, connector: Connector) -> Chat:
    assert (await post(installed(service_url))).status == 200
    connector.replies.add(REPLY)
    return Chat(post, service_url, connector)


async def _submit(chat: Chat, payload: dict[str, Any], data: dict[str, Any], **fields: Any):  # noqa: ANN202
    value = {"commandId": "createBugFromMessage", "messagePayload": payload, "data": data}
    return await chat.post(
        invoke(chat.service_url, "composeExtension/submitAction", value, **fields)
    )


async def test_a_bug_from_a_reply_is_posted_under_the_threads_root_and_closes_the_dialog(
    chat: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    connector.calls.clear()
    response = await _submit(chat, A_REPLY, {"title": "Checkout crashes"}, **IN_THE_THREAD)
    # A closing dialog: 200 and no body (an empty object is no answer Teams knows).
    assert response.status == 200
    assert await response.read() == b""
    [reply] = connector.sent()
    assert reply.path == f"/v3/conversations/{CHANNEL};messageid={ROOT}/activities/{ROOT}"
    [card] = sent_cards(connector)
    assert "Checkout crashes" in text_of(card)
    assert [item["name"] for item in await rest_items(bot, factory, GRACE)] == ["Checkout crashes"]


async def test_a_reply_from_a_payload_without_the_threads_conversation_uses_its_reply_to_id(
    chat: Chat, connector: Connector
) -> None:
    connector.calls.clear()
    response = await _submit(chat, A_REPLY, {"title": "Checkout crashes"})
    assert response.status == 200
    [reply] = connector.sent()
    assert reply.path == f"/v3/conversations/{CHANNEL};messageid={ROOT}/activities/{ROOT}"


async def test_a_bug_created_whose_card_cannot_be_posted_is_reported_created(
    chat: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    connector.refusals.append((403, {}))
    with captured(logging.INFO) as logged:
        response = await _submit(chat, A_REPLY, {"title": "Checkout crashes"}, **IN_THE_THREAD)
    assert response.status == 200
    body = await response.json()
    result = body["composeExtension"]
    assert result["type"] == "result"
    [attachment] = result["attachments"]
    assert attachment["contentType"] == ADAPTIVE
    assert "Checkout crashes" in text_of(attachment["content"])
    assert attachment["preview"]["content"]["title"] == "Created bug #1: Checkout crashes"
    assert "Something went wrong" not in str(body)
    # Created once; the failure is in the log.
    assert [item["name"] for item in await rest_items(bot, factory, GRACE)] == ["Checkout crashes"]
    [line] = [
        line
        for line in logged.of("bot.teams.actions.messaging_extension")
        if line["level"] == "WARNING"
    ]
    assert "bug #1" in line["message"] and "403" in line["message"]


MENTIONING_THE_BOT = {
    "id": ROOT,
    "body": {
        "contentType": "html",
        "content": '<p><at id="0">Tracker</at> checkout crashes on <at id="1">Grace Hopper</at>'
        "'s phone</p><p>On iOS 18</p>",
    },
    "mentions": [
        {
            "id": 0,
            "mentionText": "Tracker",
            "mentioned": {
                "application": {
                    "id": APP_ID,
                    "displayName": "Tracker",
                    "applicationIdentityType": "bot",
                }
            },
        },
        {
            "id": 1,
            "mentionText": "Grace Hopper",
            "mentioned": {"user": {"id": GRACE.object_id, "displayName": "Grace Hopper"}},
        },
    ],
}


async def test_the_prefilled_title_leaves_out_the_mention_of_the_bot(chat: Chat) -> None:
    value = {"commandId": "createBugFromMessage", "messagePayload": MENTIONING_THE_BOT}
    response = await chat.post(invoke(chat.service_url, "composeExtension/fetchTask", value))
    form = (await response.json())["task"]["value"]["card"]["content"]
    assert inputs(form)["title"]["value"] == "checkout crashes on Grace Hopper's phone"
    assert inputs(form)["description"]["value"] == (
        "checkout crashes on Grace Hopper's phone\nOn iOS 18"
    )

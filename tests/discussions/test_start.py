"""Starting a discussion: one thread in the item's channel, its card as the root, answered in
the seed's Discussion message shape; refusals change nothing."""

import asyncio
import json
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Channel, ItemThread
from bot.discussions.service import ALREADY_STARTED
from tests.cards.samples import actions, assert_valid, facts, root_title
from tests.discussions.conftest import move_connector
from tests.discussions.helpers import ADAPTIVE_CARD, CONNECTOR_CARD, Desk
from tests.factories import CHANNEL, TEAM, TENANT
from tests.teams.connector import GROUP_ID

NULLABLE_STRINGS = ("subject", "summary", "chatId", "lastEditedDateTime", "deletedDateTime")


def assert_seed_message(message: dict[str, Any]) -> None:
    """Every field of the seed's Discussion message, with its type."""
    for field in ("id", "etag", "messageType", "createdDateTime", "lastModifiedDateTime"):
        assert isinstance(message[field], str), field
    for field in ("importance", "locale", "webUrl"):
        assert isinstance(message[field], str), field
    for field in NULLABLE_STRINGS:
        assert message[field] is None or isinstance(message[field], str), field
    assert message["policyViolation"] is None
    assert message["messageType"] == "message" and message["importance"] == "normal"
    assert set(message["from"]) == {"application", "device", "conversation", "user"}
    assert message["body"]["contentType"] == "html"
    assert isinstance(message["body"]["content"], str)
    assert set(message["channelIdentity"]) == {"teamId", "channelId"}
    assert isinstance(message["mentions"], list) and message["reactions"] == []
    for attachment in message["attachments"]:
        assert set(attachment) == {
            "id",
            "contentType",
            "contentUrl",
            "content",
            "name",
            "thumbnailUrl",
        }
        assert isinstance(attachment["content"], str)


async def test_starting_a_discussion_posts_one_thread_in_the_bugs_channel_with_its_card(
    desk: Desk,
) -> None:
    bug = await desk.bug(name='Login "fails" <b>', body="Steps: <script>")
    response = await desk.start(bug["_id"])
    assert response.status == 200, await response.text()
    message = await response.json()

    [created] = desk.connector.sent()
    assert created.path == "/v3/conversations"
    assert created.body["isGroup"] is True
    assert created.body["channelData"] == {"channel": {"id": CHANNEL}}
    [attachment] = created.body["activity"]["attachments"]
    assert attachment["contentType"] == ADAPTIVE_CARD  # as every card the bot posts
    posted = attachment["content"]
    assert_valid(posted)
    assert root_title(posted) == 'Bug #1: Login "fails" <b>'
    assert facts(posted)["Status"] == "Not Started"
    [open_bug] = actions(posted)
    assert (open_bug["type"], open_bug["title"]) == ("Action.OpenUrl", "Open bug")
    item_url = open_bug["url"]
    assert item_url.endswith(f"/bugs/{bug['_id']}")

    assert_seed_message(message)
    root_id = message["id"]
    assert message["@odata.context"].endswith("/odata/$metadata#messages/$entity")
    assert message["replyToId"] is None
    assert message["from"]["application"]["applicationIdentityType"] == "bot"
    assert message["from"]["user"] is None
    assert message["channelIdentity"] == {"teamId": TEAM, "channelId": CHANNEL}
    # The API describes the root in the seed's connector-card shape.
    assert message["attachments"][0]["contentType"] == CONNECTOR_CARD
    card = json.loads(message["attachments"][0]["content"])
    assert card["title"] == "Bug #1: Login &quot;fails&quot; &lt;b&gt;"
    assert card["potentialAction"][0]["targets"][0]["uri"] == item_url
    assert message["mentions"] == []

    link = urlsplit(message["webUrl"])
    assert (link.scheme, link.netloc) == ("https", "teams.microsoft.com")
    assert link.path == f"/l/message/{CHANNEL}/{root_id}"
    assert parse_qs(link.query) == {
        "tenantId": [TENANT],
        "groupId": [GROUP_ID],
        "parentMessageId": [root_id],
        "teamName": ["Team A"],
        "channelName": ["Bugs"],
    }
    [thread], [root] = await desk.stored()
    assert thread.conversation_id == f"{CHANNEL};messageid={root_id}"
    assert (thread.root_message_id, root.message_id, root.reply_to_id) == (root_id, root_id, None)


async def test_a_task_starts_its_discussion_the_same_way(desk: Desk) -> None:
    task = await desk.client.post(
        "/odata/tasks", json={"name": "Write docs"}, headers=desk.ada.in_channel()
    )
    task_id = (await task.json())["_id"]
    message = await desk.started(task_id, "tasks")
    assert_seed_message(message)
    listed = await (await desk.messages(task_id, "tasks")).json()
    assert [m["id"] for m in listed["value"]] == [message["id"]]


async def test_a_second_start_is_the_seeds_500_and_posts_nothing(desk: Desk) -> None:
    bug = await desk.bug()
    await desk.started(bug["_id"])
    response = await desk.start(bug["_id"])
    assert response.status == 500
    assert await response.json() == {"error": ALREADY_STARTED}
    assert desk.connector.sent() == []
    threads, messages = await desk.stored()
    assert (len(threads), len(messages)) == (1, 1)


async def test_two_concurrent_starts_make_one_thread(desk: Desk) -> None:
    bug = await desk.bug()
    responses = await asyncio.gather(desk.start(bug["_id"]), desk.start(bug["_id"]))
    statuses = sorted(response.status for response in responses)
    assert statuses == [200, 500]
    assert len(desk.connector.paths("POST")) == 1
    threads, messages = await desk.stored()
    assert (len(threads), len(messages)) == (1, 1)


@pytest.mark.parametrize("status", [500, 403, 429])
async def test_teams_refusing_the_thread_is_a_502_with_nothing_stored_then_a_retry_works(
    desk: Desk, status: int
) -> None:
    bug = await desk.bug()
    desk.connector.refusals.append((status, {}))
    response = await desk.start(bug["_id"])
    assert response.status == 502
    assert "nothing was posted" in (await response.json())["error"]
    assert await desk.stored() == ([], [])

    assert (await desk.start(bug["_id"])).status == 200
    threads, messages = await desk.stored()
    assert (len(threads), len(messages)) == (1, 1)


async def test_teams_answering_a_plain_text_404_is_a_502_with_nothing_stored(desk: Desk) -> None:
    bug = await desk.bug()
    desk.connector.refusals.append((404, {"Content-Type": "text/plain"}))
    response = await desk.start(bug["_id"])
    assert response.status == 502
    assert "404" in (await response.json())["error"]
    assert await desk.stored() == ([], [])

    assert (await desk.start(bug["_id"])).status == 200


async def test_a_connector_that_is_down_is_a_502_then_a_retry_works(desk: Desk) -> None:
    bug = await desk.bug()
    await move_connector(desk.factory, "http://127.0.0.1:9")  # the discard port: refused
    response = await desk.start(bug["_id"])
    assert response.status == 502
    assert await desk.stored() == ([], [])

    await move_connector(desk.factory, desk.service_url)
    assert (await desk.start(bug["_id"])).status == 200


async def test_a_connector_that_hangs_is_a_502_after_the_wait_then_a_retry_works(
    desk: Desk,
) -> None:
    bug = await desk.bug()
    desk.connector.stall = asyncio.Event()
    response = await desk.start(bug["_id"])
    assert response.status == 502
    assert "in time" in (await response.json())["error"]
    assert await desk.stored() == ([], [])

    desk.connector.stall.set()
    assert (await desk.start(bug["_id"])).status == 200


async def test_a_claim_left_by_a_dead_process_is_taken_over_once_stale(
    desk: Desk, clock: FrozenClock
) -> None:
    bug = await desk.bug()
    channel_pk = await _channel_pk(desk)
    async with desk.factory.work() as uow:  # a start that never came back
        uow.session.add(
            ItemThread(item_id=bug["_id"], channel_id=channel_pk, started_at=clock.now())
        )
    assert (await desk.start(bug["_id"])).status == 500
    assert desk.connector.sent() == []
    clock.advance(timedelta(seconds=30))
    assert (await desk.start(bug["_id"])).status == 200


async def _channel_pk(desk: Desk) -> str:
    async with desk.factory.work() as uow:
        pk = await uow.session.scalar(select(Channel.id).where(Channel.teams_id == CHANNEL))
    assert pk is not None
    return pk

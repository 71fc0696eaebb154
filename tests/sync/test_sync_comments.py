"""Comments travel both ways between an item's discussion and its Azure DevOps work item, each
once, with the author's name: through the real app, the local Azure DevOps and the local Teams
connector, over HTTP."""

from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.discussions.conftest import _member, connector
from tests.discussions.helpers import Desk
from tests.factories import CHANNEL, Factory
from tests.scrape import scrape
from tests.sync.linking import bugs, link, run_jobs, sync_status
from tests.teams.activities import ADA, BOT_ID, GRACE, installed
from tests.teams.connector import Connector

__all__ = ["connector"]
POLL = timedelta(seconds=61)
GRACE_THERE = f"{GRACE.name} <{GRACE.upn}>"


@pytest.fixture
async def desk(
    db: str,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    aiohttp_server: AiohttpServer,
    connector: Connector,
    factory: Factory,
) -> AsyncIterator[Desk]:
    """The app with Team A installed through the bot, its sources allowed on loopback."""
    server = await aiohttp_server(connector.app())
    service_url = str(server.make_url("")).rstrip("/")
    settings = make_settings(db, JOBS_POLL_SECONDS=0, SYNC_ALLOWED_HOSTS="127.0.0.1")
    client = await aiohttp_client(create_app(settings, clock=clock))
    assert (await client.post("/api/messages", json=installed(service_url))).status == 200
    connector.calls.clear()
    yield Desk(client, connector, service_url, factory, await _member(factory, ADA.object_id))


async def _linked_bug(desk: Desk, standin: AzureDevOpsStandin) -> tuple[int, dict[str, Any]]:
    """One work item there, linked; its bug here."""
    (work_item,) = standin.seed(1, types=("Bug",))
    await link(desk.client, desk.ada, standin)
    (bug,) = await bugs(desk.client, desk.ada)
    return work_item, bug


async def _comments(desk: Desk, bug_id: str) -> list[dict[str, Any]]:
    response = await desk.comments(bug_id)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


def _texts_there(standin: AzureDevOpsStandin, work_item: int) -> list[str]:
    return [comment["text"] for comment in standin.comments(work_item)]


async def _poll(desk: Desk, clock: FrozenClock) -> None:
    clock.advance(POLL)
    await run_jobs(desk.client)


async def test_a_comment_posted_through_the_api_reaches_the_item_there_once_with_its_author(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    await desk.started(bug["_id"])
    posted = await desk.comment(bug["_id"], {"content": "Seen on the staging cache"})
    assert posted.status == 201, await posted.text()
    await run_jobs(desk.client)
    assert _texts_there(standin, work_item) == [
        "<p><strong>Ada Lovelace</strong>:</p><p>Seen on the staging cache</p>"
    ]
    desk.connector.calls.clear()
    await _poll(desk, clock)  # the pull meets the comment there: it is this one
    await _poll(desk, clock)
    assert len(standin.comments(work_item)) == 1
    [listed] = await _comments(desk, bug["_id"])
    assert listed["body"]["content"] == "Ada Lovelace: Seen on the staging cache"
    assert desk.connector.sent() == []  # nothing told back in the thread


async def test_a_reply_in_the_thread_reaches_the_item_there_once_redelivered_or_not(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    root = await desk.started(bug["_id"])
    reply = desk.reply(root["id"], "<p>Fixed by <b>the rollback</b></p>", sender=GRACE)
    await desk.teams(reply)
    await desk.teams(reply)  # Teams delivers it again
    await run_jobs(desk.client)
    await _poll(desk, clock)
    assert _texts_there(standin, work_item) == [
        "<p><strong>Grace Hopper</strong>:</p><p>Fixed by the rollback</p>"
    ]
    assert len(await _comments(desk, bug["_id"])) == 1


async def test_a_comment_made_there_is_listed_and_told_in_the_thread_once_and_not_sent_back(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    root = await desk.started(bug["_id"])
    clock.advance(timedelta(seconds=5))
    standin.comment(work_item, "Reproduced on <b>build 12</b>", by=GRACE_THERE)
    await _poll(desk, clock)
    await _poll(desk, clock)
    [listed] = await _comments(desk, bug["_id"])
    told_html = "<p>Grace Hopper: Reproduced on <strong>build 12</strong></p>"
    assert listed["body"]["content"] == told_html
    assert listed["replyToId"] == root["id"]
    assert listed["from"]["user"]["displayName"] == "Grace Hopper"
    [told] = desk.connector.sent()  # in the item's thread, by the bot
    assert f"{CHANNEL};messageid={root['id']}" in told.path
    assert told.body["text"] == told_html
    _, [_, kept] = await desk.stored()
    assert kept.author_user_id is not None  # Grace is a member: linked by her email
    echoed = desk.reply(root["id"], told.body["text"], message_id="1719999999999")
    echoed["from"] = {"id": BOT_ID, "name": "Tracker"}  # were Teams to tell the bot
    await desk.teams(echoed)
    await _poll(desk, clock)
    assert standin.exchanges_to("POST", "/comments") == []
    assert len(standin.comments(work_item)) == 1


async def test_the_first_import_stores_the_comments_there_and_tells_no_thread(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    (work_item,) = standin.seed(1, types=("Bug",))
    standin.comment(work_item, "Made before the link", by=GRACE_THERE)
    await link(desk.client, desk.ada, standin)
    assert desk.connector.sent() == []
    (bug,) = await bugs(desk.client, desk.ada)
    listed = await (await desk.comments(bug["_id"], **{"$count": "true"})).json()
    assert listed["@odata.count"] == 1  # listed before the item has a thread
    [stored] = listed["value"]
    assert stored["body"]["content"] == "<p>Grace Hopper: Made before the link</p>"
    assert stored["replyToId"] is None
    assert stored["webUrl"].startswith(f"https://teams.microsoft.com/l/channel/{CHANNEL}/")
    root = await desk.started(bug["_id"])
    [earlier] = await _comments(desk, bug["_id"])  # a reply in the thread started since
    assert earlier["body"]["content"] == "<p>Grace Hopper: Made before the link</p>"
    assert earlier["replyToId"] == root["id"]
    clock.advance(timedelta(seconds=5))
    standin.comment(work_item, "Made after", by=GRACE_THERE)
    await _poll(desk, clock)
    assert desk.connector.texts() == ["<p>Grace Hopper: Made after</p>"]
    assert [c["body"]["content"] for c in await _comments(desk, bug["_id"])] == [
        "<p>Grace Hopper: Made before the link</p>",
        "<p>Grace Hopper: Made after</p>",
    ]


async def test_a_source_failing_keeps_the_comment_waiting_and_sends_it_once_later(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    await desk.started(bug["_id"])
    standin.fail_next(status=500, path_part="/comments")
    await desk.comment(bug["_id"], {"content": "Once only"})
    await run_jobs(desk.client)
    assert standin.comments(work_item) == []
    project_id = bug["projectId"]["_id"]
    status = await sync_status(desk.client, desk.ada, project_id)
    assert (status["state"], status["pending"]) == ("failing", 1)  # the comment waits
    assert (await scrape(desk.client)).value("sync_pending") == 1  # and /metrics counts it
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert _texts_there(standin, work_item) == [
        "<p><strong>Ada Lovelace</strong>:</p><p>Once only</p>"
    ]
    assert [x.status for x in standin.exchanges_to("POST", "/comments")] == [500, 200]
    assert len(await _comments(desk, bug["_id"])) == 1
    status = await sync_status(desk.client, desk.ada, project_id)
    assert (status["state"], status["lastError"], status["pending"]) == ("running", None, 0)
    assert (await scrape(desk.client)).value("sync_pending") == 0


async def test_deleting_the_item_while_its_comment_waits_sends_nothing_for_it(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    await desk.started(bug["_id"])
    standin.fail_next(status=500, path_part="/comments")
    await desk.comment(bug["_id"], {"content": "Never sent"})
    await run_jobs(desk.client)
    deleted = await desk.client.delete(f"/odata/bugs({bug['_id']})", headers=desk.ada.in_channel())
    assert deleted.status == 204
    await _poll(desk, clock)
    assert standin.in_recycle_bin(work_item)
    assert [x.status for x in standin.exchanges_to("POST", "/comments")] == [500]
    assert standin.comments(work_item) == []


async def test_a_comment_made_while_the_sync_is_paused_is_sent_once_it_resumes(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    await desk.started(bug["_id"])
    standin.revoke_token()
    await desk.comment(bug["_id"], {"content": "Said while paused"})
    await _poll(desk, clock)
    project_id = bug["projectId"]["_id"]
    assert (await sync_status(desk.client, desk.ada, project_id))["state"] == "paused"
    assert standin.comments(work_item) == []
    standin.add_token("new-pat")
    saved = await desk.client.patch(
        f"/api/projects/{project_id}", json={"token": "new-pat"}, headers=desk.ada.in_channel()
    )
    assert saved.status == 200, await saved.text()
    await run_jobs(desk.client)
    assert _texts_there(standin, work_item) == [
        "<p><strong>Ada Lovelace</strong>:</p><p>Said while paused</p>"
    ]


async def test_a_project_that_only_reads_brings_comments_in_and_sends_none(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    (work_item,) = standin.seed(1, types=("Bug",))
    await link(desk.client, desk.ada, standin, sync={"enabled": True, "direction": "in"})
    (bug,) = await bugs(desk.client, desk.ada)
    await desk.started(bug["_id"])
    await desk.comment(bug["_id"], {"content": "Stays here"})
    clock.advance(timedelta(seconds=5))
    standin.comment(work_item, "Comes in", by=GRACE_THERE)
    await _poll(desk, clock)
    assert _texts_there(standin, work_item) == ["Comes in"]
    assert [c["body"]["content"] for c in await _comments(desk, bug["_id"])] == [
        "Ada Lovelace: Stays here",
        "<p>Grace Hopper: Comes in</p>",
    ]


async def test_a_comment_whose_answer_was_lost_is_found_there_not_sent_twice_nor_told_back(
    desk: Desk, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    work_item, bug = await _linked_bug(desk, standin)
    await desk.started(bug["_id"])
    standin.fail_next(status=502, after_change=True, path_part="/comments")
    await desk.comment(bug["_id"], {"content": "Made there, answer lost"})
    desk.connector.calls.clear()
    await run_jobs(desk.client)
    assert len(standin.comments(work_item)) == 1  # made, though the answer said otherwise
    project_id = bug["projectId"]["_id"]
    asked = await desk.client.post(
        f"/api/projects/{project_id}/sync", headers=desk.ada.in_channel()
    )
    assert asked.status == 202
    await run_jobs(desk.client)  # a pull meets it there before the push is tried again
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert _texts_there(standin, work_item) == [
        "<p><strong>Ada Lovelace</strong>:</p><p>Made there, answer lost</p>"
    ]
    assert [x.status for x in standin.exchanges_to("POST", "/comments")] == [502]
    [listed] = await _comments(desk, bug["_id"])
    assert listed["body"]["content"] == "Ada Lovelace: Made there, answer lost"
    assert desk.connector.sent() == []  # never told in the thread as the source's

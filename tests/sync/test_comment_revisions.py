"""Edits and deletions of comments travel both ways, each once, for Azure DevOps and Jira (one
suite for both): a reply edited or deleted in the item's Teams thread changes or deletes its
comment there; a comment edited or deleted there changes or removes its reply in the thread.
Through the real app, the local sources and the local Teams connector, over HTTP; every request
to a source is checked against the vendor's description at teardown (the stand-in fixtures)."""

from datetime import timedelta
from typing import Any

import pytest

from bot.clock import FrozenClock
from tests.discussions.conftest import connector
from tests.discussions.helpers import Desk, thread_activity
from tests.factories import CHANNEL
from tests.scrape import scrape
from tests.sync.comment_sources import There
from tests.sync.jira_fixtures import jira, make_jira
from tests.sync.linking import run_jobs, sync_status
from tests.sync.safe_html import unsafe
from tests.sync.test_sync_comments import desk

__all__ = ["connector", "desk", "jira", "make_jira"]
POLL = timedelta(seconds=61)
REPLY_ID = "1710000000777"


@pytest.fixture(params=["azure_devops", "jira"])
def there(request: pytest.FixtureRequest) -> There:
    name = "standin" if request.param == "azure_devops" else "jira"
    return There(request.getfixturevalue(name))


async def _poll(desk: Desk, clock: FrozenClock) -> None:
    clock.advance(POLL)
    await run_jobs(desk.client)


async def _listed(desk: Desk, bug_id: str) -> list[dict[str, Any]]:
    response = await desk.comments(bug_id)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


async def _replied_in_thread(desk: Desk, there: There) -> tuple[dict[str, Any], str]:
    """A linked bug whose thread has Ada's reply, sent there; the bug and its thread's id."""
    bug = await there.linked_bug(desk)
    root = await desk.started(bug["_id"])
    await desk.teams(desk.reply(root["id"], "First words", message_id=REPLY_ID))
    await run_jobs(desk.client)
    assert there.texts() == ["**Ada Lovelace**:\n\nFirst words"]
    return bug, f"{CHANNEL};messageid={root['id']}"


def _edit(desk: Desk, thread: str, html: str) -> dict[str, Any]:
    return thread_activity(
        "messageUpdate", desk.service_url, thread, REPLY_ID, html, event_type="editMessage"
    )


def _deletion(desk: Desk, thread: str) -> dict[str, Any]:
    return thread_activity(
        "messageDelete", desk.service_url, thread, REPLY_ID, "", event_type="softDeleteMessage"
    )


async def test_a_reply_edited_in_the_thread_edits_its_comment_there_once(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug, thread = await _replied_in_thread(desk, there)
    await desk.teams(_edit(desk, thread, "Second thoughts: the <b>cache</b>"))
    await desk.teams(_edit(desk, thread, "Second thoughts: the <b>cache</b>"))  # redelivered
    await run_jobs(desk.client)
    assert there.texts() == ["**Ada Lovelace**:\n\nSecond thoughts: the cache"]
    desk.connector.calls.clear()
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert there.sent(there.edit_method) == [200]  # once, and never echoed back
    assert desk.connector.paths("PUT") == []  # nothing told back in the thread
    assert desk.connector.sent() == []
    [listed] = await _listed(desk, bug["_id"])
    assert listed["body"]["content"] == "<p>Second thoughts: the <b>cache</b></p>"
    status = await sync_status(desk.client, desk.ada, bug["projectId"]["_id"])
    assert status["pending"] == 0


async def test_a_reply_deleted_in_the_thread_deletes_its_comment_there_once(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug, thread = await _replied_in_thread(desk, there)
    await desk.teams(_deletion(desk, thread))
    await run_jobs(desk.client)
    assert there.texts() == []
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert len(there.sent("DELETE")) == 1
    assert desk.connector.sent() == []  # nothing told back in the thread
    status = await sync_status(desk.client, desk.ada, bug["projectId"]["_id"])
    assert status["pending"] == 0


async def test_a_deletion_the_source_fails_waits_is_counted_and_is_retried_once(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug, thread = await _replied_in_thread(desk, there)
    there.local.fail_next(status=500, path_part=there.comments_path)
    await desk.teams(_deletion(desk, thread))
    await run_jobs(desk.client)
    assert there.texts() == ["**Ada Lovelace**:\n\nFirst words"]  # still there
    project_id = bug["projectId"]["_id"]
    status = await sync_status(desk.client, desk.ada, project_id)
    assert (status["state"], status["pending"]) == ("failing", 1)  # the deletion waits
    assert (await scrape(desk.client)).value("sync_pending") == 1
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert there.texts() == []
    assert there.sent("DELETE")[0] == 500
    assert len(there.sent("DELETE")) == 2
    status = await sync_status(desk.client, desk.ada, project_id)
    assert (status["state"], status["pending"]) == ("running", 0)
    assert (await scrape(desk.client)).value("sync_pending") == 0


async def test_an_edit_made_while_the_comment_waits_goes_out_as_the_comment(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug = await there.linked_bug(desk)
    root = await desk.started(bug["_id"])
    thread = f"{CHANNEL};messageid={root['id']}"
    there.local.fail_next(status=500, path_part=there.comments_path)
    await desk.teams(desk.reply(root["id"], "Draft", message_id=REPLY_ID))
    await run_jobs(desk.client)
    assert there.texts() == []
    await desk.teams(_edit(desk, thread, "Final words"))
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert there.texts() == ["**Ada Lovelace**:\n\nFinal words"]
    assert there.sent(there.edit_method) == []  # sent once, as it reads now


async def test_a_reply_deleted_before_it_went_out_is_never_sent(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug = await there.linked_bug(desk)
    root = await desk.started(bug["_id"])
    thread = f"{CHANNEL};messageid={root['id']}"
    there.local.fail_next(status=500, path_part=there.comments_path)
    await desk.teams(desk.reply(root["id"], "Oops", message_id=REPLY_ID))
    await run_jobs(desk.client)  # tried once: the source failed
    await desk.teams(_deletion(desk, thread))
    await _poll(desk, clock)
    await _poll(desk, clock)
    assert there.texts() == []
    assert there.sent("POST") == [500]
    status = await sync_status(desk.client, desk.ada, bug["projectId"]["_id"])
    assert status["pending"] == 0


async def test_a_comment_edited_there_edits_its_reply_in_the_thread_once(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug = await there.linked_bug(desk)
    await desk.started(bug["_id"])
    clock.advance(timedelta(seconds=5))
    said = there.say("Reproduced on build 12")
    await _poll(desk, clock)
    [told] = desk.connector.sent()
    assert told.body["text"] == "<p>Grace Hopper: Reproduced on build 12</p>"
    [listed] = await _listed(desk, bug["_id"])
    teams_id = listed["id"]
    assert not teams_id.startswith("source-")  # Teams' id for the reply is kept
    desk.connector.calls.clear()
    clock.advance(timedelta(seconds=5))
    there.edit(said, "Reproduced on build **13**")
    await _poll(desk, clock)
    await _poll(desk, clock)
    [edit] = [c for c in desk.connector.calls if c.method == "PUT"]
    assert edit.path.endswith(f"/activities/{teams_id}")
    assert edit.body["text"] == "<p>Grace Hopper: Reproduced on build <strong>13</strong></p>"
    assert desk.connector.sent() == []  # edited in place, not told again
    [listed] = await _listed(desk, bug["_id"])
    assert listed["body"]["content"] == edit.body["text"]
    assert listed["lastEditedDateTime"] is not None
    assert there.sent(there.edit_method) == []  # the edit there never goes back


async def test_a_comment_deleted_there_is_removed_from_the_thread_once(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug = await there.linked_bug(desk)
    await desk.started(bug["_id"])
    clock.advance(timedelta(seconds=5))
    there.say("Stays")
    gone = there.say("Goes")
    await _poll(desk, clock)
    assert len(desk.connector.sent()) == 2
    [going] = [m["id"] for m in await _listed(desk, bug["_id"]) if "Goes" in m["body"]["content"]]
    desk.connector.calls.clear()
    clock.advance(timedelta(seconds=5))
    there.delete(gone)
    await _poll(desk, clock)
    await _poll(desk, clock)
    [removed] = desk.connector.paths("DELETE")
    assert removed.endswith(f"/activities/{going}")
    listed = await _listed(desk, bug["_id"])
    assert {m["id"]: m["deletedDateTime"] is not None for m in listed} == {
        m["id"]: m["id"] == going for m in listed
    }
    assert len(listed) == 2
    assert there.sent("DELETE") == []  # the deletion there never goes back
    assert there.texts() == ["Stays"]


HOSTILE = {
    "azure_devops": (
        '<p onclick="alert(1)">See <a href="javascript:alert(1)">this</a>'
        '<script>alert(2)</script> and <a href="https://ok.test/" onmouseover="alert(3)">'
        "that</a></p><ul><li><b>one</b></li></ul><img src=x onerror=alert(4)>"
    ),
    "jira": {
        "type": "doc",
        "version": 1,
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "See <script>alert(2)</script> "},
                    {
                        "type": "text",
                        "text": "this",
                        "marks": [{"type": "link", "attrs": {"href": "javascript:alert(1)"}}],
                    },
                    {"type": "text", "text": " and "},
                    {
                        "type": "text",
                        "text": "that",
                        "marks": [{"type": "link", "attrs": {"href": "https://ok.test/"}}],
                    },
                ],
            },
            {
                "type": "bulletList",
                "content": [
                    {
                        "type": "listItem",
                        "content": [
                            {
                                "type": "paragraph",
                                "content": [
                                    {"type": "text", "text": "one", "marks": [{"type": "strong"}]}
                                ],
                            }
                        ],
                    }
                ],
            },
        ],
    },
}


async def test_a_hostile_comment_there_reaches_the_thread_as_safe_html(
    desk: Desk, there: There, clock: FrozenClock
) -> None:
    bug = await there.linked_bug(desk)
    await desk.started(bug["_id"])
    clock.advance(timedelta(seconds=5))
    source = "azure_devops" if there.edit_method == "PATCH" else "jira"
    there.say_raw(HOSTILE[source])
    await _poll(desk, clock)
    [told] = desk.connector.sent()
    html = told.body["text"]
    assert unsafe(html) == [], html
    assert "<script" not in html and 'href="javascript' not in html
    assert '<a href="https://ok.test/">that</a>' in html  # links, lists and emphasis read as there
    assert "<li><strong>one</strong></li>" in html
    [listed] = await _listed(desk, bug["_id"])
    assert listed["body"]["content"] == html

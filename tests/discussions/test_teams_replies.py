"""Replies people post in an item's thread in Teams, their edits, deletions and restorations,
as Teams sends them to a bot with resource-specific consent; other channel chatter is ignored."""

from datetime import UTC, datetime

from tests.discussions.helpers import Desk, thread_activity
from tests.factories import CHANNEL
from tests.teams.activities import BOT_ID, GRACE, LIN, MALLORY, teams_activity

POSTED = datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
EDITED = datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
DELETED = datetime(2026, 11, 21, 10, 7, tzinfo=UTC)
RESTORED = datetime(2026, 11, 21, 10, 9, tzinfo=UTC)


async def _discussed(desk: Desk) -> tuple[str, str]:
    bug = await desk.bug()
    root = await desk.started(bug["_id"])
    return bug["_id"], root["id"]


async def _listed(desk: Desk, bug_id: str) -> list[dict]:
    response = await desk.messages(bug_id)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


async def test_a_reply_in_the_thread_is_kept_with_its_author_html_and_mentions(
    desk: Desk,
) -> None:
    bug_id, root_id = await _discussed(desk)
    reply = desk.reply(
        root_id,
        'Seen on <a href="https://contoso.test/log">the log</a>, <at>Lin Chen</at>',
        sender=GRACE,
        message_id="1710000000001",
        at=POSTED,
        mentioning=(LIN,),
    )
    await desk.teams(reply)

    assert desk.connector.sent() == []  # people talking among themselves: no answer
    root, kept = await _listed(desk, bug_id)
    assert root["id"] == root_id
    assert kept["id"] == "1710000000001"
    assert kept["replyToId"] == root_id
    assert kept["createdDateTime"] == "2026-11-21T10:00:00.000Z"
    assert kept["body"] == {
        "contentType": "html",
        "content": '<p>Seen on <a href="https://contoso.test/log">the log</a>, '
        "<at>Lin Chen</at></p>",
    }
    assert kept["from"]["user"] == {
        "id": GRACE.object_id,
        "displayName": "Grace Hopper",
        "userIdentityType": "aadUser",
    }
    assert kept["from"]["application"] is None
    [mention] = kept["mentions"]
    assert mention["mentionText"] == "Lin Chen"
    assert mention["mentioned"]["user"]["id"] == LIN.object_id
    assert kept["attachments"] == []
    assert kept["webUrl"].split("?")[0].endswith(f"/{CHANNEL}/1710000000001")
    assert f"parentMessageId={root_id}" in kept["webUrl"]
    _, messages = await desk.stored()
    assert messages[1].author_user_id is not None  # Grace is on the roster: linked to her user


async def test_someone_not_on_the_roster_is_kept_by_name_without_a_user(desk: Desk) -> None:
    _, root_id = await _discussed(desk)
    await desk.teams(desk.reply(root_id, "hello", sender=MALLORY))
    _, [_, kept] = await desk.stored()
    assert (kept.author_name, kept.author_user_id) == ("Mallory", None)


async def test_an_edit_then_a_deletion_then_a_restoration_show_in_the_discussion(
    desk: Desk,
) -> None:
    bug_id, root_id = await _discussed(desk)
    thread = f"{CHANNEL};messageid={root_id}"
    await desk.teams(desk.reply(root_id, "first", message_id="1710000000002", at=POSTED))

    edit = thread_activity(
        "messageUpdate",
        desk.service_url,
        thread,
        "1710000000002",
        "second thoughts",
        at=EDITED,
        event_type="editMessage",
    )
    await desk.teams(edit)
    [_, edited] = await _listed(desk, bug_id)
    assert edited["body"]["content"] == "<p>second thoughts</p>"
    assert edited["lastEditedDateTime"] == edited["lastModifiedDateTime"]
    assert edited["lastEditedDateTime"] == "2026-11-21T10:05:00.000Z"
    assert edited["createdDateTime"] == "2026-11-21T10:00:00.000Z"
    assert edited["deletedDateTime"] is None

    deletion = thread_activity(
        "messageDelete",
        desk.service_url,
        thread,
        "1710000000002",
        "",
        at=DELETED,
        event_type="softDeleteMessage",
    )
    await desk.teams(deletion)
    [_, deleted] = await _listed(desk, bug_id)
    assert deleted["deletedDateTime"] == "2026-11-21T10:07:00.000Z"

    restore = thread_activity(
        "messageUpdate",
        desk.service_url,
        thread,
        "1710000000002",
        "second thoughts",
        at=RESTORED,
        event_type="undeleteMessage",
    )
    await desk.teams(restore)
    [_, restored] = await _listed(desk, bug_id)
    assert restored["deletedDateTime"] is None
    assert restored["lastModifiedDateTime"] == "2026-11-21T10:09:00.000Z"
    assert restored["body"]["content"] == "<p>second thoughts</p>"
    assert desk.connector.sent() == []


async def test_edits_and_deletions_of_messages_nobody_kept_do_no_harm(desk: Desk) -> None:
    bug_id, root_id = await _discussed(desk)
    before = await desk.stored()
    elsewhere = f"{CHANNEL};messageid=1699999999999"
    for conversation, message_id in ((elsewhere, "17"), (f"{CHANNEL};messageid={root_id}", "18")):
        for kind, event in (
            ("messageUpdate", "editMessage"),
            ("messageDelete", "softDeleteMessage"),
            ("messageUpdate", "undeleteMessage"),
        ):
            activity = thread_activity(
                kind, desk.service_url, conversation, message_id, "x", event_type=event
            )
            await desk.teams(activity)
    assert await desk.stored() == before
    assert desk.connector.sent() == []


async def test_a_redelivered_reply_is_kept_once(desk: Desk) -> None:
    bug_id, root_id = await _discussed(desk)
    reply = desk.reply(root_id, "once", message_id="1710000000003")
    await desk.teams(reply)
    await desk.teams(reply)
    assert [m["id"] for m in await _listed(desk, bug_id)] == [root_id, "1710000000003"]


async def test_unmentioned_channel_messages_outside_discussions_are_ignored(desk: Desk) -> None:
    await _discussed(desk)
    before = await desk.stored()
    chatter = [
        # A new post in the channel, and a reply in a thread that is no item's.
        thread_activity("message", desk.service_url, CHANNEL, "1710000000004", "lunch?"),
        desk.reply("1699999999999", "bugs"),
    ]
    for activity in chatter:
        await desk.teams(activity)
    assert desk.connector.calls == []
    assert await desk.stored() == before


async def test_a_reply_that_mentions_the_bot_is_kept_and_answered_as_a_command(
    desk: Desk,
) -> None:
    bug_id, root_id = await _discussed(desk)
    asking = desk.reply(root_id, "<at>Tracker</at> bugs", message_id="1710000000005")
    asking["entities"] = [
        {
            "type": "mention",
            "mentioned": {"id": BOT_ID, "name": "Tracker"},
            "text": "<at>Tracker</at>",
        }
    ]
    await desk.teams(asking)
    [answer] = desk.connector.sent()
    assert (
        answer.path == f"/v3/conversations/{CHANNEL};messageid={root_id}/activities/1710000000005"
    )
    messages = await _listed(desk, bug_id)
    assert [m["id"] for m in messages] == [root_id, "1710000000005"]
    assert messages[1]["mentions"][0]["mentioned"]["application"]["displayName"] == "Tracker"


async def test_a_mention_outside_a_discussion_is_still_a_command(desk: Desk) -> None:
    before = await desk.stored()
    asking = teams_activity(
        "message",
        desk.service_url,
        text="<at>Tracker</at> help",
        entities=[
            {
                "type": "mention",
                "mentioned": {"id": BOT_ID, "name": "Tracker"},
                "text": "<at>Tracker</at>",
            }
        ],
    )
    await desk.teams(asking)
    assert len(desk.connector.sent()) == 1
    assert await desk.stored() == before

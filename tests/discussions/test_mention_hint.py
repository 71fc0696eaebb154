"""Replies are kept only if Teams delivers every channel message to the app (resource-specific
consent); a tenant may withhold that, and then only @mentions arrive. Until the app has seen a
channel message that does not mention it in a team, each thread's root there asks people to
@mention the app; once one arrives, the next update of a root drops the line."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.keys import WORKER
from tests.cards.samples import text_of
from tests.discussions.helpers import Desk
from tests.teams.activities import BOT_ID, GRACE

HINT = "Mention @Tracker in your reply so it is kept here."
WINDOW = timedelta(seconds=3)  # past the thread's coalescing window


def posted_root(desk: Desk) -> str:
    """The words of the root card the last new thread was started with."""
    [started] = [call for call in desk.connector.sent() if call.path == "/v3/conversations"]
    return text_of(started.body["activity"]["attachments"][0]["content"])


async def updated_root(desk: Desk, clock: FrozenClock, bug_id: str, status: str) -> str:
    """Change the bug; the words of its root card as the thread's update puts them."""
    desk.connector.calls.clear()
    response = await desk.client.patch(
        f"/odata/bugs({bug_id})", json={"status": status}, headers=desk.ada.in_channel()
    )
    assert response.status == 204, await response.text()
    clock.advance(WINDOW)
    for _ in range(4):
        await desk.client.app[WORKER].run_once()
    [update] = [call for call in desk.connector.calls if call.method == "PUT"]
    return text_of(update.body["attachments"][0]["content"])


async def test_the_root_asks_for_a_mention_until_an_unmentioned_reply_arrives(
    desk: Desk, clock: FrozenClock
) -> None:
    bug = await desk.bug(name="Printer on fire")
    response = await desk.start(bug["_id"])
    assert response.status == 200, await response.text()
    assert HINT in posted_root(desk)
    root_id = (await response.json())["id"]

    # A reply that @mentions the app proves nothing: it arrives without the consent too.
    asking = desk.reply(root_id, "<at>Tracker</at> help", sender=GRACE)
    asking["entities"] = [
        {
            "type": "mention",
            "mentioned": {"id": BOT_ID, "name": "Tracker"},
            "text": "<at>Tracker</at>",
        }
    ]
    await desk.teams(asking)
    assert HINT in await updated_root(desk, clock, bug["_id"], "In Progress")

    await desk.teams(desk.reply(root_id, "Seen it too", sender=GRACE))
    assert HINT not in await updated_root(desk, clock, bug["_id"], "Completed")

    other = await desk.bug(name="Scanner jammed")
    desk.connector.calls.clear()
    assert (await desk.start(other["_id"])).status == 200
    assert HINT not in posted_root(desk)
    assert "Scanner jammed" in posted_root(desk)

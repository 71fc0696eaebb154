"""A discussion from end to end: started through the API, the bug changed, and the thread shows
it: the root card updated in place, one reply saying who changed what, listed by the API."""

import json
from datetime import timedelta

from bot.clock import FrozenClock
from bot.keys import WORKER
from tests.cards.samples import facts
from tests.discussions.helpers import Desk


async def test_a_started_discussion_follows_the_bugs_changes(
    desk: Desk, clock: FrozenClock
) -> None:
    bug = await desk.bug(name="Checkout is down")
    root = await desk.started(bug["_id"])
    response = await desk.client.patch(
        f"/odata/bugs({bug['_id']})", json={"status": "In Progress"}, headers=desk.ada.in_channel()
    )
    assert response.status == 204
    clock.advance(timedelta(seconds=3))  # past the coalescing window
    for _ in range(4):
        await desk.client.app[WORKER].run_once()

    [update] = [call for call in desk.connector.calls if call.method == "PUT"]
    assert update.path.endswith(f"/activities/{root['id']}")
    assert facts(update.body["attachments"][0]["content"])["Status"] == "In Progress"
    [reply] = desk.connector.sent()
    assert "In Progress" in reply.body["text"]

    listed = await (await desk.messages(bug["_id"])).json()
    assert listed["@odata.count"] == 2
    first, second = listed["value"]
    assert (first["id"], first["replyToId"]) == (root["id"], None)
    assert second["replyToId"] == root["id"]
    assert "In Progress" in second["body"]["content"]
    card = json.loads(first["attachments"][0]["content"])
    assert {"name": "Status", "value": "In Progress"} in card["sections"][0]["facts"]

"""Rules from end to end: a change made through the API reaches the rule's receiver, signed,
with the payload the docs describe; nothing else is sent."""

import json
from datetime import timedelta

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import WORKER
from tests.events.deliveries.factory import rule_to
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member
from tests.factories import create_item as create

URGENT = [{"ops": "and", "conditions": [{"field": "priority", "ops": "Is", "value": "urgent"}]}]


async def run_worker(client: TestClient) -> None:
    """Turns of the worker until nothing is left to do now (events, then their sends)."""
    for _ in range(5):
        await client.app[WORKER].run_once()


async def test_a_created_bug_matching_a_rule_reaches_its_receiver_signed_with_the_payload(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"), conditions=URGENT)
    bug = await create(client, ada, name="Checkout is down", priority="Urgent")
    await create(client, ada, name="Typo on the about page", priority="Low")

    await run_worker(client)

    [received] = receiver.requests
    received.verify(rule["secret"])
    assert received.headers["X-Svc-Event"] == "ITEM_CREATED"
    payload = json.loads(received.body)
    assert (payload["triggerType"], payload["entityType"]) == ("ITEM_CREATED", "bug")
    assert payload["eventName"] == rule["eventName"]
    assert (payload["item"]["_id"], payload["item"]["name"]) == (bug["_id"], "Checkout is down")
    assert payload["actor"]["displayName"] == ada.user.display_name


async def test_an_update_fires_once_and_a_resend_keeps_its_webhook_id(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    conditions = [
        {
            "ops": "and",
            "conditions": [{"field": "status", "ops": "ChangedTo", "value": "Completed"}],
        }
    ]
    rule = await rule_to(
        client, ada, receiver.url("/ok"), triggerType="ITEM_UPDATED", conditions=conditions
    )
    bug = await create(client, ada, name="Flaky login")
    path = f"/odata/bugs({bug['_id']})"
    for body in (
        {"name": "Flaky login on Safari"},
        {"status": "Completed"},
        {"status": "Completed"},
    ):
        clock.advance(timedelta(seconds=1))
        response = await client.patch(path, json=body, headers=ada.in_channel())
        assert response.status == 204
    await run_worker(client)

    [received] = receiver.requests  # the rename and the no-op fire nothing
    received.verify(rule["secret"])
    log = await client.get(f"/api/events/{rule['_id']}/deliveries", headers=ada.in_channel())
    [delivery] = (await log.json())["value"]
    resent = await client.post(
        f"/api/events/{rule['_id']}/deliveries/{delivery['_id']}/resend", headers=ada.in_channel()
    )
    assert resent.status in (200, 202), await resent.text()
    await run_worker(client)
    first, again = receiver.requests
    assert again.webhook_id == first.webhook_id
    assert again.body == first.body

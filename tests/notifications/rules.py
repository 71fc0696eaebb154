"""Notification rules made over the API, and what tests read of what they posted."""

from typing import Any

from aiohttp.test_utils import TestClient

from tests.events.engine.helpers import add_rule
from tests.factories import Member
from tests.teams.connector import Call, seen

ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"


async def notify_on(
    client: TestClient, member: Member, trigger: str = "ITEM_UPDATED", **fields: Any
) -> str:
    """A Notification rule of the member's channel, switched on; its id."""
    return await add_rule(
        client, member, triggerType=trigger, actionType="Notification", action={}, **fields
    )


def thread_starts(calls: list[Call]) -> list[Call]:
    """New threads posted in the channel (a root card, a digest)."""
    return [call for call in calls if call.method == "POST" and call.path == "/v3/conversations"]


def replies(calls: list[Call]) -> list[Call]:
    return [call for call in calls if call.method == "POST" and "/activities" in call.path]


def root_card(call: Call) -> dict[str, Any]:
    [attachment] = call.body["activity"]["attachments"]
    assert attachment["contentType"] == ADAPTIVE_CARD
    return dict(attachment["content"])


def mentioned(activity: dict[str, Any]) -> list[str]:
    """The ids of the people a message @mentions where Teams shows the mention (a card's inside
    the card, never in a text beside it)."""
    return seen(activity).mentioned


async def log_of(client: TestClient, member: Member, rule_id: str) -> list[dict[str, Any]]:
    response = await client.get(f"/api/events/{rule_id}/deliveries", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])

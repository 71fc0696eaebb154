"""Rules made through the API, the pump run by hand, and the deliveries it made, as rows."""

import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import EventDelivery, Job
from bot.events.deliveries.deliver_job import DELIVER
from bot.keys import EVENT_PUMP
from tests.events.definitions.helpers import HOOK_URL, PATH
from tests.factories import CHANNEL, TEAM, Factory, Member


def rule_body(**fields: Any) -> dict[str, Any]:
    """An HTTP rule on created bugs with no conditions and the default payload; `fields`
    override."""
    body: dict[str, Any] = {
        "eventName": "To the hook",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "conditions": [],
        "actionType": "HTTP",
        "action": {"url": HOOK_URL, "method": "POST", "headers": [], "body": ""},
    }
    return body | fields


async def add_rule(
    client: TestClient, member: Member, *, channel: str = CHANNEL, **fields: Any
) -> str:
    """A rule made through the API, in the member's channel (`channel` of Team A); its id."""
    headers = member.in_channel(TEAM, channel)
    response = await client.post(PATH, json=rule_body(**fields), headers=headers)
    assert response.status == 201, await response.text()
    return str((await response.json())["_id"])


def where(*conditions: dict[str, Any], ops: str = "and") -> list[dict[str, Any]]:
    """One condition group."""
    return [{"ops": ops, "conditions": list(conditions)}]


def condition(field: str, ops: str, value: str | None = None) -> dict[str, Any]:
    return {"field": field, "ops": ops, "value": value}


async def process(app: web.Application) -> None:
    """Run the pump until every pending event is processed (what the worker does at once)."""
    while await app[EVENT_PUMP].run_once():
        pass


async def deliveries(factory: Factory) -> list[dict[str, Any]]:
    """Every delivery made, oldest first, as the sender will read it."""
    async with factory.work(write=False) as uow:
        rows = await uow.rows(
            select(
                EventDelivery.id,
                EventDelivery.definition_id,
                EventDelivery.event_id,
                EventDelivery.item_id,
                EventDelivery.trigger,
                EventDelivery.webhook_id,
                EventDelivery.request,
                EventDelivery.state,
                EventDelivery.attempts,
            ).order_by(EventDelivery.created_at, EventDelivery.id)
        )
    return [dict(row) for row in rows]


async def delivery_jobs(factory: Factory) -> list[dict[str, Any]]:
    """The payloads of the queued jobs that send deliveries."""
    async with factory.work(write=False) as uow:
        payloads = await uow.values(select(Job.payload).where(Job.kind == DELIVER.name))
    return list(payloads)


def sent_json(delivery: dict[str, Any]) -> Any:
    """The body a delivery will send, read as JSON."""
    return json.loads(delivery["request"]["body"])

"""Deliveries as the engine makes them: an `event_deliveries` row with its request fixed, and an
`events.deliver` job naming it, written in one transaction (definitions come from the API)."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import DeliveryAttempt, EventDefinition, EventDelivery, Job
from bot.events.deliveries.deliver_job import DELIVER, TryDelivery
from bot.ids import new_id
from tests.factories import Factory, Member

BODY = '{"text": "Printer on fire"}'


async def rule_to(client: TestClient, member: Member, url: str, **fields: Any) -> dict[str, Any]:
    """An enabled HTTP rule on created bugs calling `url`, made through the API (its secret
    shown)."""
    body = {
        "eventName": "To the receiver",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "actionType": "HTTP",
        "action": {
            "url": url,
            "method": "POST",
            "headers": [{"name": "X-Team", "value": "platform"}],
        },
        **fields,
    }
    response = await client.post("/odata/eventDefinitions", json=body, headers=member.in_channel())
    assert response.status == 201, await response.text()
    return dict(await response.json())


async def delivery(
    factory: Factory,
    definition_id: str,
    *,
    body: str = BODY,
    trigger: str = "ITEM_CREATED",
    url: str | None = None,
    headers: list[dict[str, str]] | None = None,
    failed: bool = False,
) -> EventDelivery:
    """A pending delivery of the rule's action and its job, as the engine writes them; or
    (`failed`) one whose only try failed, with no job left."""
    async with factory.work() as uow:
        definition = await uow.get(EventDefinition, definition_id)
        assert definition is not None
        action = definition.action
        row = EventDelivery(
            id=new_id(),
            definition_id=definition.id,
            channel_id=definition.channel_id,
            event_id=new_id(),
            item_id=new_id(),
            trigger=trigger,
            webhook_id=f"msg_{new_id()}",
            request={
                "url": url or action["url"],
                "method": action.get("method", "POST"),
                "headers": action.get("headers") or [] if headers is None else headers,
                "body": body,
            },
            state="failed" if failed else "pending",
            attempts=1 if failed else 0,
            created_at=uow.clock.now(),
            last_attempt_at=uow.clock.now() if failed else None,
            finished_at=uow.clock.now() if failed else None,
        )
        uow.add(row)
        await uow.flush()
        if not failed:
            await DELIVER.enqueue(uow, TryDelivery(delivery_id=row.id))
    return row


async def stored(factory: Factory, delivery_id: str) -> EventDelivery:
    async with factory.work(write=False) as uow:
        row = await uow.get(EventDelivery, delivery_id)
    assert row is not None
    return row


async def attempts(factory: Factory, delivery_id: str) -> list[DeliveryAttempt]:
    """The delivery's tries, oldest first."""
    async with factory.work(write=False) as uow:
        return await uow.entities(
            select(DeliveryAttempt)
            .where(DeliveryAttempt.delivery_id == delivery_id)
            .order_by(DeliveryAttempt.at, DeliveryAttempt.id)
        )


async def queued_tries(factory: Factory) -> list[Job]:
    """Delivery jobs still to run, soonest first."""
    async with factory.work(write=False) as uow:
        return await uow.entities(
            select(Job).where(Job.kind == DELIVER.name, Job.state == "queued").order_by(Job.run_at)
        )

"""Each trigger, for bugs and tasks, makes exactly one delivery with the request to send."""

from datetime import timedelta

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.events.deliveries.made import webhook_id
from bot.keys import DUE_SWEEP
from bot.timestamps import format_timestamp
from tests.events.definitions.helpers import HOOK_URL
from tests.events.engine.helpers import (
    add_rule,
    deliveries,
    delivery_jobs,
    process,
    sent_json,
)
from tests.factories import CHANNEL, TEAM, TENANT, Factory, Member, create_item, insert_copies

HOUR = timedelta(hours=1)
KINDS = pytest.mark.parametrize("kind", ["bug", "task"])


async def patch(client: TestClient, member: Member, kind: str, item_id: str, **fields: object):
    response = await client.patch(
        f"/odata/{kind}s({item_id})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def one_delivery(factory: Factory) -> dict:
    made = await deliveries(factory)
    assert len(made) == 1, made
    assert await delivery_jobs(factory) == [{"deliveryId": made[0]["id"]}]
    return made[0]


@KINDS
async def test_a_created_item_makes_one_delivery_of_the_event_payload(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock, kind: str
) -> None:
    ada = await factory.member("Ada Lovelace")
    rule_id = await add_rule(
        client,
        ada,
        entityType=kind,
        action={
            "url": HOOK_URL,
            "method": "PUT",
            "headers": [{"name": "X-Team", "value": "platform"}],
            "body": "",
        },
    )
    item = await create_item(client, ada, of=kind, name="Printer on fire", assignedTo=[ada.user.id])

    await process(app)
    await process(app)  # nothing more the second time

    delivery = await one_delivery(factory)
    assert (delivery["definition_id"], delivery["item_id"]) == (rule_id, item["_id"])
    assert (delivery["state"], delivery["attempts"]) == ("pending", 0)
    assert delivery["webhook_id"] == webhook_id(delivery["event_id"], rule_id)
    request = delivery["request"]
    assert (request["url"], request["method"]) == (HOOK_URL, "PUT")
    assert request["headers"] == [
        {"name": "X-Team", "value": "platform"},
        {"name": "Content-Type", "value": "application/json"},
    ]
    sent = sent_json(delivery)
    assert {key: value for key, value in sent.items() if key != "item"} == {
        "eventId": delivery["event_id"],
        "eventName": "To the hook",
        "triggerType": "ITEM_CREATED",
        "entityType": kind,
        "tenantId": TENANT,
        "teamId": TEAM,
        "channelId": CHANNEL,
        "occurredAt": format_timestamp(clock.now()),
        "actor": {"id": ada.user.id, "displayName": "Ada Lovelace"},
        "changes": [],
    }
    details = await client.get(f"/api/{kind}s/{item['_id']}/details", headers=ada.in_channel())
    assert sent["item"] == {**(await details.json()), "attachments": []}
    assert [user["displayName"] for user in sent["item"]["assignedTo"]] == ["Ada Lovelace"]


@KINDS
async def test_an_effective_update_makes_one_delivery_with_its_changes(
    app: web.Application, client: TestClient, factory: Factory, kind: str
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType="ITEM_UPDATED")
    item = await create_item(client, ada, of=kind, name="Old name")
    await process(app)

    await patch(client, ada, kind, item["_id"], name="New name")
    await process(app)

    sent = sent_json(await one_delivery(factory))
    assert sent["triggerType"] == "ITEM_UPDATED"
    assert sent["changes"] == [{"field": "name", "old": "Old name", "new": "New name"}]
    assert sent["item"]["name"] == "New name"


@KINDS
async def test_an_update_that_changes_nothing_delivers_nothing(
    app: web.Application, client: TestClient, factory: Factory, kind: str
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType="ITEM_UPDATED")
    item = await create_item(client, ada, of=kind, name="Same", priority="High")

    await patch(client, ada, kind, item["_id"], name="Same", priority="high")
    await process(app)

    assert await deliveries(factory) == []
    assert await delivery_jobs(factory) == []


@KINDS
async def test_a_deleted_item_makes_one_delivery_with_its_last_state(
    app: web.Application, client: TestClient, factory: Factory, kind: str
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType="ITEM_DELETED")
    item = await create_item(client, ada, of=kind, name="Going away")
    response = await client.delete(f"/odata/{kind}s({item['_id']})", headers=ada.in_channel())
    assert response.status == 204

    await process(app)

    sent = sent_json(await one_delivery(factory))
    assert sent["triggerType"] == "ITEM_DELETED"
    assert (sent["item"]["_id"], sent["item"]["name"]) == (item["_id"], "Going away")


@KINDS
@pytest.mark.parametrize("trigger", ["DUESOON", "OVERDUE"])
async def test_a_due_date_line_crossed_makes_one_delivery(
    app: web.Application,
    client: TestClient,
    factory: Factory,
    clock: FrozenClock,
    kind: str,
    trigger: str,
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType=trigger)
    due = clock.now() + 30 * HOUR
    item = await create_item(client, ada, of=kind, dueDate=format_timestamp(due))

    for hours in (10, 10, 20, 20):  # due soon after 7 h, overdue after 30 h
        clock.advance(hours * HOUR)
        await app[DUE_SWEEP].run_once()
        await process(app)

    delivery = await one_delivery(factory)
    sent = sent_json(delivery)
    assert (sent["triggerType"], sent["item"]["_id"]) == (trigger, item["_id"])
    assert sent["item"]["dueDate"] == format_timestamp(due)
    assert sent["actor"] is None  # the sweep acts for nobody


@KINDS
async def test_moving_the_due_date_re_arms_due_soon(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock, kind: str
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType="DUESOON")
    due = format_timestamp(clock.now() + 10 * HOUR)
    item = await create_item(client, ada, of=kind, dueDate=due)
    await app[DUE_SWEEP].run_once()
    await process(app)
    moved = clock.now() + 60 * HOUR
    await patch(client, ada, kind, item["_id"], dueDate=format_timestamp(moved))

    clock.advance(40 * HOUR)
    await app[DUE_SWEEP].run_once()
    await process(app)

    made = await deliveries(factory)
    assert [sent_json(delivery)["item"]["dueDate"] for delivery in made] == [
        format_timestamp(clock.now() - 30 * HOUR),
        format_timestamp(moved),
    ]
    assert len({delivery["webhook_id"] for delivery in made}) == 2


@KINDS
async def test_a_line_crossed_while_down_delivers_once_after_start(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock, kind: str
) -> None:
    ada = await factory.member()
    await add_rule(client, ada, entityType=kind, triggerType="OVERDUE")
    await add_rule(client, ada, entityType=kind, triggerType="DUESOON", eventName="Soon")
    due = format_timestamp(clock.now() + 5 * HOUR)
    item = await create_item(client, ada, of=kind, dueDate=due)
    await app[DUE_SWEEP].run_once()  # already due soon: that fires now
    await process(app)

    clock.advance(48 * HOUR)  # no sweep ran meanwhile
    await app[DUE_SWEEP].run_once()
    await app[DUE_SWEEP].run_once()
    await process(app)

    made = await deliveries(factory)
    assert [(d["trigger"], d["item_id"]) for d in made] == [
        ("DUESOON", item["_id"]),
        ("OVERDUE", item["_id"]),
    ]


async def test_a_bulk_edit_makes_one_delivery_per_item_and_rule(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    rules = [await add_rule(client, ada, triggerType="ITEM_UPDATED") for _ in range(3)]
    first = await create_item(client, ada, name="One of many")
    await insert_copies(factory, first["_id"], 249)
    listed = await client.get("/odata/bugs?$top=1000&$select=_id", headers=ada.in_channel())
    ids = [row["_id"] for row in (await listed.json())["value"]]
    response = await client.post(
        "/api/bulk/bug", json={"ids": ids, "priority": "Low"}, headers=ada.in_channel()
    )
    assert response.status == 200

    await process(app)  # 250 events, over two batches: 750 deliveries, in chunks

    made = await deliveries(factory)
    assert sorted((d["definition_id"], d["item_id"]) for d in made) == sorted(
        (rule, item_id) for rule in rules for item_id in ids
    )
    assert sorted(job["deliveryId"] for job in await delivery_jobs(factory)) == sorted(
        d["id"] for d in made
    )
    assert {sent_json(d)["changes"][0]["new"] for d in made} == {"Low"}

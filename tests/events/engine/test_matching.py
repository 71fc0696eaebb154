"""Which rules a change matches: conditions through the API, and what never matches."""

import logging
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.engine import session_factory
from bot.db.tables import PendingEvent
from bot.db.uow import UnitOfWork, unit_of_work
from bot.events import engine
from bot.events.pump import Event, EventPump
from tests.events.engine.helpers import (
    add_rule,
    condition,
    deliveries,
    delivery_jobs,
    process,
    where,
)
from tests.factories import Factory, Member, create_item

CHANNEL_B = "19:channel-b@thread.tacv2"


async def patch(client: TestClient, member: Member, item: dict, **fields: object) -> None:
    response = await client.patch(
        f"/odata/bugs({item['_id']})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def delivered_items(factory: Factory) -> list[tuple[str, str]]:
    """(rule id, item id) of every delivery, oldest first."""
    return [(d["definition_id"], d["item_id"]) for d in await deliveries(factory)]


async def test_nested_groups_decide_which_created_bugs_are_delivered(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    # (Urgent and still New) or named with "fire"
    rule = await add_rule(
        client,
        ada,
        conditionsOps="or",
        conditions=[
            {
                "ops": "and",
                "conditions": [
                    condition("priority", "Is", "urgent"),
                    condition("statusCategory", "Is", "New"),
                ],
            },
            {"ops": "and", "conditions": [condition("name", "Contains", "FIRE")]},
        ],
    )
    urgent = await create_item(client, ada, name="Calm", priority="Urgent")
    await create_item(client, ada, name="Calm", priority="Normal")
    await create_item(client, ada, name="Calm", priority="Urgent", status="In Progress")
    fire = await create_item(client, ada, name="Fire drill", priority="Low")

    await process(app)

    assert sorted(await delivered_items(factory)) == sorted(
        [(rule, urgent["_id"]), (rule, fire["_id"])]
    )


async def test_people_dates_and_presence_conditions_on_created_bugs(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member("Ada Lovelace")
    grace = await factory.member("Grace Hopper")
    to_grace = await add_rule(
        client, ada, conditions=where(condition("assignedTo", "Contains", "grace hopper"))
    )
    late = await add_rule(
        client, ada, conditions=where(condition("dueDate", "GreaterThan", "2027-01-01"))
    )
    undated = await add_rule(client, ada, conditions=where(condition("dueDate", "HasNoValue")))
    first = await create_item(client, ada, assignedTo=[grace.user.id, ada.user.id])
    second = await create_item(client, ada, dueDate="2027-01-01T00:00:01Z")
    # 2027-01-01T00:59:59Z, as an instant
    third = await create_item(client, ada, dueDate="2026-12-31T23:59:59-01:00")

    await process(app)

    assert sorted(await delivered_items(factory)) == sorted(
        [
            (to_grace, first["_id"]),
            (undated, first["_id"]),
            (late, second["_id"]),
            (late, third["_id"]),
        ]
    )


async def test_changed_and_changed_to_look_at_the_update(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    done = await add_rule(
        client,
        ada,
        triggerType="ITEM_UPDATED",
        conditions=where(condition("statusCategory", "ChangedTo", "Done")),
    )
    reprioritised = await add_rule(
        client,
        ada,
        triggerType="ITEM_UPDATED",
        conditions=where(condition("priority", "Changed")),
    )
    bug = await create_item(client, ada, name="Bug")
    await patch(client, ada, bug, name="Renamed")  # neither
    await patch(client, ada, bug, status="In Progress")  # New → Active: not Done
    await patch(client, ada, bug, status="Completed", priority="High")  # both

    await process(app)

    assert sorted(await delivered_items(factory)) == sorted(
        [(done, bug["_id"]), (reprioritised, bug["_id"])]
    )
    sent = {d["definition_id"]: d for d in await deliveries(factory)}
    assert '"statusCategory"' not in sent[done]["request"]["body"]  # changes as they were
    assert '"Completed"' in sent[done]["request"]["body"]


async def test_another_channels_another_kinds_and_disabled_rules_never_match(
    app: web.Application, client: TestClient, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Other")
    await add_rule(client, ada, channel=CHANNEL_B)  # every created bug of channel B
    await add_rule(client, ada, entityType="task")  # every created task
    await add_rule(client, ada, enable=False)  # switched off
    await add_rule(client, ada, triggerType="ITEM_DELETED")  # another trigger

    await create_item(client, ada, name="Only a bug in channel A")
    await process(app)

    assert await deliveries(factory) == []
    assert await delivery_jobs(factory) == []
    async with factory.work(write=False) as uow:
        unprocessed = await uow.values(
            select(PendingEvent.id).where(PendingEvent.processed_at.is_(None))
        )
    assert unprocessed == []  # the Notification rule matched, and broke nothing


async def test_an_event_processed_again_after_a_crash_makes_one_delivery(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    await add_rule(client, ada)
    await create_item(client, ada)
    crashes = [RuntimeError("the process died before its commit")]

    async def crash(uow: UnitOfWork, events: Any) -> None:
        if crashes:
            raise crashes.pop()

    pump = EventPump(session_factory(factory.engine), clock, [engine.match, crash])
    try:
        await pump.run_once()
    except RuntimeError:
        pass
    assert await deliveries(factory) == []  # rolled back with the batch
    await pump.run_once()

    made = await deliveries(factory)
    assert len(made) == 1
    assert await delivery_jobs(factory) == [{"deliveryId": made[0]["id"]}]


async def test_matching_the_same_events_twice_makes_one_delivery_and_one_job(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    await add_rule(client, ada)
    await create_item(client, ada)
    async with factory.work(write=False) as uow:
        rows = await uow.rows(select(PendingEvent))
    events = [Event(**{key: row[key] for key in Event.__slots__}) for row in rows]

    for _ in range(2):  # as two processes might, were the pump's lock ever lost
        async with unit_of_work(session_factory(factory.engine), clock) as uow:
            await engine.match(uow, events)

    made = await deliveries(factory)
    assert len(made) == 1
    assert await delivery_jobs(factory) == [{"deliveryId": made[0]["id"]}]


async def test_each_pump_pass_that_processes_events_is_one_log_line(
    app: web.Application, client: TestClient, factory: Factory, caplog: pytest.LogCaptureFixture
) -> None:
    ada = await factory.member()
    await create_item(client, ada, name="Logged")
    caplog.set_level(logging.INFO, logger="bot.events.pump")
    await process(app)
    [line] = [record for record in caplog.records if record.name == "bot.events.pump"]
    assert line.getMessage().startswith("events.pump processed 1 events")
    assert line.fields["events"] == 1  # type: ignore[attr-defined]

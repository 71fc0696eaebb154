"""Deleting a priority or severity: free when no item holds it, 409 while items do, and
`?reassignTo=<name>` moving those items first, in the same transaction, as an edit of each."""

from datetime import timedelta

from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import PendingEvent
from tests.factories import Factory, create_item
from tests.fields.helpers import field_values, stored_item


async def updated_events(factory: Factory) -> list[PendingEvent]:
    async with factory.work() as uow:
        return list(
            await uow.session.scalars(
                select(PendingEvent)
                .where(PendingEvent.trigger == "ITEM_UPDATED")
                .order_by(PendingEvent.item_id)
            )
        )


async def test_a_priority_no_item_holds_is_deleted(client, factory: Factory) -> None:
    ada = await factory.member()
    low = (await field_values(factory, "priority"))["Low"]
    response = await client.delete(f"/odata/priority('{low.id}')", headers=ada.in_channel())
    assert response.status == 204
    listed = await (await client.get("/api/priority", headers=ada.in_channel())).json()
    assert low.id not in {row["_id"] for row in listed["value"]}
    assert "Low" in await field_values(factory, "priority", "Task")  # the Task kind's own stays
    again = await client.delete(f"/odata/priority({low.id})", headers=ada.in_channel())
    assert again.status == 404


async def test_deleting_a_priority_items_hold_answers_409_naming_how_many(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bugs = [await create_item(client, ada, priority="Low") for _ in range(2)]
    low = (await field_values(factory, "priority"))["Low"]
    response = await client.delete(f"/odata/priority({low.id})", headers=ada.in_channel())
    assert response.status == 409
    message = (await response.json())["error"]
    assert "2 items" in message and "'Low'" in message and "reassignTo" in message
    assert "Low" in await field_values(factory, "priority")
    assert [(await stored_item(factory, bug["_id"])).priority for bug in bugs] == ["Low", "Low"]


async def test_one_item_is_named_as_one(client, factory: Factory) -> None:
    ada = await factory.member()
    await create_item(client, ada, severity="Low")
    low = (await field_values(factory, "severity"))["Low"]
    response = await client.delete(f"/odata/severity({low.id})", headers=ada.in_channel())
    assert response.status == 409
    assert (await response.json())["error"].startswith("1 item holds the severity 'Low'")


async def test_reassign_to_moves_the_items_then_deletes(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bugs = [await create_item(client, ada, priority="Low") for _ in range(2)]
    kept = await create_item(client, ada, priority="High")
    task = await create_item(client, ada, "task", priority="Low")
    counted = {"$filter": "priority eq 'Low'"}
    listed = await client.get("/api/bugs", params=counted, headers=ada.in_channel())
    assert (await listed.json())["@odata.count"] == 2  # now cached under the list's version
    low = (await field_values(factory, "priority"))["Low"]
    clock.advance(timedelta(minutes=3))

    response = await client.delete(
        f"/odata/priority({low.id})", params={"reassignTo": "normal"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert "Low" not in await field_values(factory, "priority")
    for bug in bugs:
        details = await (
            await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
        ).json()
        assert details["priority"] == "Normal"
        assert details["updatedAt"] == "2026-11-21T09:33:00.000Z"
        assert details["updatedBy"]["uniqueName"] == ada.user.username
    assert (await stored_item(factory, kept["_id"])).priority == "High"
    assert (await stored_item(factory, task["_id"])).priority == "Low"  # the Task kind's Low
    listed = await client.get("/api/bugs", params=counted, headers=ada.in_channel())
    assert (await listed.json())["@odata.count"] == 0
    normal = await client.get(
        "/api/bugs", params={"$filter": "priority eq 'Normal'"}, headers=ada.in_channel()
    )
    assert (await normal.json())["@odata.count"] == 2
    # Each moved item fires ITEM_UPDATED, as a bulk edit would.
    events = await updated_events(factory)
    assert sorted(event.item_id for event in events) == sorted(bug["_id"] for bug in bugs)
    for event in events:
        assert event.kind == "bug"
        assert event.actor_id == ada.user.id
        assert event.payload == {"changes": [{"field": "priority", "old": "Low", "new": "Normal"}]}


async def test_reassign_to_with_no_items_deletes_and_fires_nothing(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    urgent = (await field_values(factory, "priority", "Task"))["Urgent"]
    response = await client.delete(
        f"/odata/priority({urgent.id})", params={"reassignTo": "High"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert "Urgent" not in await field_values(factory, "priority", "Task")
    assert await updated_events(factory) == []


async def test_a_bad_reassign_to_answers_400_and_changes_nothing(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, priority="Low")
    someday = await client.post(
        "/odata/priority", json={"name": "Someday", "type": "Task"}, headers=ada.in_channel()
    )
    assert someday.status == 201
    low = (await field_values(factory, "priority"))["Low"]
    for target, why in (
        ("Nothing", "one of: Urgent, High, Normal"),  # no such priority
        ("Someday", "no Bug priority"),  # a priority of the other kind
        ("Medium", "no Bug priority"),  # a severity, not a priority
        ("LOW", "another priority"),  # the one being deleted
        ("", "no Bug priority"),
    ):
        response = await client.delete(
            f"/odata/priority({low.id})", params={"reassignTo": target}, headers=ada.in_channel()
        )
        assert response.status == 400, target
        message = (await response.json())["error"]
        assert message.startswith("reassignTo: ") and why in message, (target, message)
    assert "Low" in await field_values(factory, "priority")
    assert (await stored_item(factory, bug["_id"])).priority == "Low"
    assert await updated_events(factory) == []


async def test_reassign_to_reaches_no_other_channel(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel("19:other@thread.tacv2", name="Other")
    other_headers = ada.in_channel(channel="19:other@thread.tacv2")
    made = await client.post(
        "/odata/bugs", json={"name": "elsewhere", "priority": "Low"}, headers=other_headers
    )
    assert made.status == 201
    elsewhere = await made.json()
    here = await create_item(client, ada, priority="Low")
    low = (await field_values(factory, "priority"))["Low"]
    response = await client.delete(
        f"/odata/priority({low.id})", params={"reassignTo": "High"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert (await stored_item(factory, here["_id"])).priority == "High"
    assert (await stored_item(factory, elsewhere["_id"])).priority == "Low"


async def test_the_primary_cannot_be_deleted_even_with_reassign_to(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    medium = (await field_values(factory, "severity"))["Medium"]
    response = await client.delete(
        f"/odata/severity({medium.id})", params={"reassignTo": "Low"}, headers=ada.in_channel()
    )
    assert response.status == 400
    assert "primary" in (await response.json())["error"]
    assert "Medium" in await field_values(factory, "severity")


async def test_reassigning_a_severity_moves_the_bugs(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, severity="Critical")
    critical = (await field_values(factory, "severity"))["Critical"]
    conflict = await client.delete(f"/odata/severity({critical.id})", headers=ada.in_channel())
    assert conflict.status == 409
    response = await client.delete(
        f"/odata/severity({critical.id})", params={"reassignTo": "High"}, headers=ada.in_channel()
    )
    assert response.status == 204
    details = await (
        await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    ).json()
    assert details["severity"] == "High"
    events = await updated_events(factory)
    assert [event.payload for event in events] == [
        {"changes": [{"field": "severity", "old": "Critical", "new": "High"}]}
    ]

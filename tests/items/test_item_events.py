"""Pending events: what each item change records for the events engine, and what it does not."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Channel, PendingEvent
from tests.factories import CHANNEL, TEAM, Factory
from tests.factories import create_item as create

NOW = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


async def events(factory: Factory, trigger: str | None = None) -> list[PendingEvent]:
    """Pending events in the order they happened (ties by item, for bulk edits)."""
    statement = select(PendingEvent).order_by(PendingEvent.occurred_at, PendingEvent.item_id)
    if trigger:
        statement = statement.where(PendingEvent.trigger == trigger)
    async with factory.work() as uow:
        return list(await uow.session.scalars(statement))


def by_field(changes: list[dict[str, Any]]) -> dict[str, tuple[Any, Any]]:
    fields = {change["field"]: (change["old"], change["new"]) for change in changes}
    assert len(fields) == len(changes), "each field is reported once"
    return fields


def without_odata(created: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in created.items() if not key.startswith("@odata.")}


@pytest.mark.parametrize("of", ["bug", "task"])
async def test_create_records_item_created_with_the_created_item(
    client, factory: Factory, of: str
) -> None:
    ada = await factory.member("Ada")
    created = await create(
        client, ada, of, dueDate="2026-11-25", assignedTo=[ada.user.id], bucket=["ui"]
    )
    [event] = await events(factory)
    async with factory.work() as uow:
        channel_id = await uow.session.scalar(select(Channel.id).where(Channel.teams_id == CHANNEL))
    assert (event.trigger, event.kind, event.item_id, event.channel_id) == (
        "ITEM_CREATED",
        of,
        created["_id"],
        channel_id,
    )
    assert (event.actor_id, event.occurred_at) == (ada.user.id, NOW)
    assert event.payload == {"item": without_odata(created)}


async def test_patch_records_item_updated_with_each_changed_field(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    bug = await create(client, ada, body="Old", dueDate="2026-11-25", assignedTo=[ada.user.id])
    clock.advance(timedelta(minutes=10))
    response = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={
            "name": "New name",
            "body": None,
            "status": "Completed",
            "priority": "Normal",  # unchanged: not reported
            "startDate": "2026-11-20T08:00:00+01:00",
            "dueDate": "2026-11-26",
            "bucket": ["api"],
            "assignedTo": [grace.user.id, ada.user.id],
        },
        headers=grace.in_channel(),
    )
    assert response.status == 204
    [event] = await events(factory, "ITEM_UPDATED")
    assert (event.item_id, event.kind, event.actor_id) == (bug["_id"], "bug", grace.user.id)
    assert event.occurred_at == NOW + timedelta(minutes=10)
    assert set(event.payload) == {"changes"}
    assert by_field(event.payload["changes"]) == {
        "name": ("A bug", "New name"),
        "body": ("Old", None),
        "status": ("Not Started", "Completed"),
        "startDate": (None, "2026-11-20T07:00:00.000Z"),
        "dueDate": ("2026-11-25T00:00:00.000Z", "2026-11-26T00:00:00.000Z"),
        "completedDate": (None, "2026-11-21T09:40:00.000Z"),
        "bucket": ([], ["api"]),
        "assignedTo": ([ada.user.id], [grace.user.id, ada.user.id]),
    }


async def test_patch_that_changes_nothing_records_nothing(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    bug = await create(
        client, ada, owner="Ada", dueDate="2026-11-25T12:00:00Z", assignedTo=[ada.user.id]
    )
    clock.advance(timedelta(minutes=10))
    same = {
        "name": "A bug",
        "owner": "Ada",
        "status": "NOT STARTED",
        "dueDate": "2026-11-25T13:00:00+01:00",
        "assignedTo": [ada.user.username],
        "completedDate": None,
        "source": "Svc.Native",
    }
    for body in ({}, same):
        response = await client.patch(
            f"/odata/bugs({bug['_id']})", json=body, headers=ada.in_channel()
        )
        assert response.status == 204
    assert [event.trigger for event in await events(factory)] == ["ITEM_CREATED"]


async def test_bulk_edit_records_one_item_updated_per_changed_item(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    plain = await create(client, ada, name="Plain")
    already = await create(client, ada, name="Already", status="Completed", priority="Low")
    late = await create(client, ada, name="Late", startDate="2026-12-31")
    clock.advance(timedelta(minutes=1))
    body = {
        "ids": [plain["_id"], already["_id"], late["_id"], plain["_id"], "nope"],
        "status": "Completed",
        "priority": "Low",
        "dueDate": "2026-12-01",
        "assignedTo": [{"_id": grace.user.id}],
    }
    response = await client.post("/api/bulk/bug", json=body, headers=grace.in_channel())
    assert [result["status"] for result in await response.json()] == [
        "success",
        "success",
        "error",
        "success",
        "error",
    ]
    updated = {event.item_id: event for event in await events(factory, "ITEM_UPDATED")}
    assert set(updated) == {plain["_id"], already["_id"]}
    assert {(e.actor_id, e.kind, e.occurred_at) for e in updated.values()} == {
        (grace.user.id, "bug", NOW + timedelta(minutes=1))
    }
    due = (None, "2026-12-01T00:00:00.000Z")
    assert by_field(updated[plain["_id"]].payload["changes"]) == {
        "status": ("Not Started", "Completed"),
        "priority": ("Normal", "Low"),
        "dueDate": due,
        "completedDate": (None, "2026-11-21T09:31:00.000Z"),
        "assignedTo": ([], [grace.user.id]),
    }
    assert by_field(updated[already["_id"]].payload["changes"]) == {
        "dueDate": due,
        "assignedTo": ([], [grace.user.id]),
    }


async def test_bulk_edit_that_changes_nothing_records_nothing(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada, status="In Progress", priority="High")
    body = {"ids": [bug["_id"]], "status": "in progress", "priority": "High", "assignedTo": []}
    response = await client.post("/api/bulk/bug", json=body, headers=ada.in_channel())
    assert response.status == 200
    assert [event.trigger for event in await events(factory)] == ["ITEM_CREATED"]


async def test_delete_records_item_deleted_with_the_last_details(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    bug = await create(client, ada, assignedTo=[grace.user.id], dueDate="2026-12-01")
    await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Last"}, headers=ada.in_channel()
    )
    last = await (
        await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    ).json()
    clock.advance(timedelta(minutes=3))
    response = await client.delete(f"/odata/bugs('{bug['_id']}')", headers=grace.in_channel())
    assert response.status == 204
    [event] = await events(factory, "ITEM_DELETED")
    assert (event.item_id, event.kind, event.actor_id) == (bug["_id"], "bug", grace.user.id)
    assert event.occurred_at == NOW + timedelta(minutes=3)
    assert event.payload == {"item": last}
    assert (last["name"], last["teamId"], last["channelId"]) == ("Last", TEAM, CHANNEL)


async def test_task_events_carry_the_task_kind(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    task = await create(client, ada, "task")
    # A minute between changes: events are listed in the order they happened.
    clock.advance(timedelta(minutes=1))
    await client.patch(f"/odata/tasks({task['_id']})", json={"name": "B"}, headers=ada.in_channel())
    clock.advance(timedelta(minutes=1))
    await client.post(
        "/api/bulk/task", json={"ids": [task["_id"]], "priority": "Low"}, headers=ada.in_channel()
    )
    clock.advance(timedelta(minutes=1))
    await client.delete(f"/odata/tasks({task['_id']})", headers=ada.in_channel())
    recorded = await events(factory)
    assert [(e.trigger, e.kind, e.item_id) for e in recorded] == [
        ("ITEM_CREATED", "task", task["_id"]),
        ("ITEM_UPDATED", "task", task["_id"]),
        ("ITEM_UPDATED", "task", task["_id"]),
        ("ITEM_DELETED", "task", task["_id"]),
    ]
    assert "severity" not in recorded[0].payload["item"]


REFUSED = {
    "create-400": ("post", "/odata/bugs", {"name": ""}),
    "create-415": ("post", "/odata/bugs", None),
    "patch-400": ("patch", "/odata/bugs({id})", {"status": "Nope"}),
    "patch-404": ("patch", "/odata/bugs(0123456789abcdef01234567)", {"name": "x"}),
    "patch-other-kind": ("patch", "/odata/tasks({id})", {"name": "x"}),
    "delete-404": ("delete", "/odata/tasks({id})", None),
    "bulk-400": ("post", "/api/bulk/bug", {"ids": ["{id}"], "priority": "Nope"}),
    "bulk-not-found": (
        "post",
        "/api/bulk/bug",
        {"ids": ["0123456789abcdef01234567"], "priority": "Low"},
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
async def test_a_refused_request_records_no_event(client, factory: Factory, case: str) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    method, path, body = REFUSED[case]
    if body and "ids" in body:
        body = {**body, "ids": [i.format(id=bug["_id"]) for i in body["ids"]]}
    kwargs: dict[str, Any] = {"headers": ada.in_channel()}
    if body is not None:
        kwargs["json"] = body
    elif method == "post":
        kwargs["data"] = b"name=x"
        kwargs["headers"] = {**ada.in_channel(), "Content-Type": "text/plain"}
    response = await getattr(client, method)(path.format(id=bug["_id"]), **kwargs)
    assert response.status in (200, 400, 404, 415)
    assert [event.trigger for event in await events(factory)] == ["ITEM_CREATED"]


async def test_a_non_member_records_no_event(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    outsider = await factory.user("Mallory")
    cookie = await factory.session(outsider)
    headers = {
        "Cookie": f"graphNodeCookie={cookie}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": CHANNEL,
    }
    response = await client.delete(f"/odata/bugs({bug['_id']})", headers=headers)
    assert response.status == 403
    assert [event.trigger for event in await events(factory)] == ["ITEM_CREATED"]

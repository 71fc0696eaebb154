"""Bulk edit of bugs and tasks: one result per id in request order, each id judged on its own."""

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, insert, select, update

from bot.clock import FrozenClock
from bot.db.tables import Item, ItemAssignee, ItemCounter, PendingEvent
from bot.ids import new_id
from tests.factories import Factory, Member
from tests.factories import create_item as create

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
UNKNOWN_ID = "0123456789abcdef01234567"
NOW = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


async def bulk(
    client: TestClient, member: Member, body: dict[str, Any], of: str = "bug"
) -> tuple[int, Any]:
    response = await client.post(f"/api/bulk/{of}", json=body, headers=member.in_channel())
    return response.status, await response.json()


async def rows(factory: Factory) -> dict[str, Item]:
    async with factory.work() as uow:
        return {item.id: item for item in await uow.session.scalars(select(Item))}


def columns(item: Item) -> dict[str, Any]:
    return {column.key: getattr(item, column.key) for column in Item.__table__.columns}


async def stored(factory: Factory) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]], int]:
    """Items, assignee links and the number of pending events: what a refusal leaves alone."""
    async with factory.work() as uow:
        items = [columns(i) for i in await uow.session.scalars(select(Item).order_by(Item.id))]
        links = await uow.session.execute(
            select(ItemAssignee.item_id, ItemAssignee.user_id, ItemAssignee.position).order_by(
                ItemAssignee.item_id, ItemAssignee.position
            )
        )
        events = await uow.session.scalar(select(func.count()).select_from(PendingEvent))
        return items, [tuple(link) for link in links], events or 0


def ok(item: dict[str, Any]) -> dict[str, Any]:
    return {"_id": item["_id"], "name": item["name"], "status": "success"}


def not_found(item_id: str) -> dict[str, Any]:
    return {"_id": item_id, "name": None, "status": "error", "error": "Svc_NOTFOUND"}


async def test_bulk_edit_answers_one_result_per_id_in_request_order(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    one, two, three = [await create(client, ada, name=f"Bug {n}") for n in (1, 2, 3)]
    task = await create(client, ada, "task", name="A task")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    bob = await factory.member("Bob", team_id=TEAM_B)
    theirs = await (
        await client.post(
            "/odata/bugs", json={"name": "Secret"}, headers=bob.in_channel(TEAM_B, CHANNEL_B)
        )
    ).json()
    ids = [three["_id"], "not-an-id", one["_id"], three["_id"], UNKNOWN_ID, "x" * 300]
    ids += [task["_id"], theirs["_id"], two["_id"]]
    status, results = await bulk(client, ada, {"ids": ids, "priority": "high"})
    assert status == 200
    assert results == [
        ok(three),
        not_found("not-an-id"),
        ok(one),
        ok(three),
        not_found(UNKNOWN_ID),
        not_found("x" * 300),
        not_found(task["_id"]),
        not_found(theirs["_id"]),
        ok(two),
    ]
    after = await rows(factory)
    assert {after[i["_id"]].priority for i in (one, two, three)} == {"High"}
    assert (after[task["_id"]].priority, after[theirs["_id"]].priority) == ("Normal", "Normal")


async def test_bulk_edit_of_tasks_uses_its_own_path(client, factory: Factory) -> None:
    ada = await factory.member()
    task = await create(client, ada, "task", name="A task")
    bug = await create(client, ada)
    status, results = await bulk(
        client, ada, {"ids": [task["_id"], bug["_id"]], "status": "In Progress"}, "task"
    )
    assert (status, results) == (200, [ok(task), not_found(bug["_id"])])
    after = await rows(factory)
    assert (after[task["_id"]].status, after[bug["_id"]].status) == ("In Progress", "Not Started")


async def test_a_date_pair_made_inconsistent_fails_only_that_item(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    starts_late = await create(client, ada, name="Starts late", startDate="2026-12-15")
    free = await create(client, ada, name="Free")
    due_soon = await create(client, ada, name="Due soon", dueDate="2026-11-30")
    before = await rows(factory)
    clock.advance(timedelta(minutes=5))
    status, results = await bulk(
        client,
        ada,
        {"ids": [starts_late["_id"], free["_id"]], "dueDate": "2026-12-01", "priority": "Low"},
    )
    assert status == 200
    assert results == [
        {
            "_id": starts_late["_id"],
            "name": "Starts late",
            "status": "error",
            "error": "Svc_INVALID_DATES",
        },
        ok(free),
    ]
    status, results = await bulk(client, ada, {"ids": [due_soon["_id"]], "startDate": "2026-12-02"})
    assert results == [
        {
            "_id": due_soon["_id"],
            "name": "Due soon",
            "status": "error",
            "error": "Svc_INVALID_DATES",
        }
    ]
    after = await rows(factory)
    assert columns(after[starts_late["_id"]]) == columns(before[starts_late["_id"]])
    assert columns(after[due_soon["_id"]]) == columns(before[due_soon["_id"]])
    changed = after[free["_id"]]
    assert (changed.due_date, changed.priority) == (datetime(2026, 12, 1, tzinfo=UTC), "Low")
    assert changed.updated_at == NOW + timedelta(minutes=5)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        (
            {"status": "Nope"},
            "status: 'Nope' does not exist in this channel "
            "(one of: Completed, In Progress, Not Started)",
        ),
        (
            {"priority": "Nope"},
            "priority: 'Nope' does not exist in this channel (one of: High, Low, Normal, Urgent)",
        ),
        (
            {"severity": "Nope"},
            "severity: 'Nope' does not exist in this channel (one of: Critical, High, Low, Medium)",
        ),
        ({"ids": []}, "ids: List should have at least 1 item after validation, not 0"),
        (
            {"ids": [UNKNOWN_ID] * 1001},
            "ids: List should have at most 1000 items after validation, not 1001",
        ),
        ({"ids": None}, "ids: Input should be a valid list"),
        ({"ids": "abc"}, "ids: Input should be a valid list"),
        (
            {"dueDate": "soon"},
            "dueDate: Value error, must be an ISO 8601 date or date-time in the extended format "
            "(2026-12-01, 2026-12-01T09:30:00Z, 2026-12-01T09:30:00+02:00)",
        ),
        (
            {"assignedTo": ["nobody@contoso.test"]},
            "assignedTo: 'nobody@contoso.test' is not a member of this team",
        ),
    ],
    ids=[
        "unknown-status",
        "unknown-priority",
        "unknown-severity",
        "no-ids",
        "too-many-ids",
        "null-ids",
        "ids-a-string",
        "bad-date",
        "unknown-assignee",
    ],
)
async def test_a_bad_value_for_everyone_answers_400_and_changes_nothing(
    client, factory: Factory, fields: dict[str, Any], error: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, assignedTo=[ada.user.id])
    before = await stored(factory)
    body = {"ids": [bug["_id"]], "priority": "Urgent", "dueDate": "2026-12-01", **fields}
    assert await bulk(client, ada, body) == (400, {"error": error})
    assert await stored(factory) == before


async def test_an_assignee_who_is_not_a_member_answers_400(client, factory: Factory) -> None:
    ada = await factory.member("Ada")
    await factory.team(TEAM_B, name="Team B")
    bob = await factory.member("Bob", team_id=TEAM_B)
    bug = await create(client, ada)
    before = await stored(factory)
    body = {"ids": [bug["_id"]], "priority": "Low", "assignedTo": [{"_id": bob.user.id}]}
    assert await bulk(client, ada, body) == (
        400,
        # Bob's _id as Ada sent it: never his UPN, which she cannot see.
        {"error": f"assignedTo: '{bob.user.id}' is not a member of this team"},
    )
    assert await stored(factory) == before


async def test_malformed_json_and_a_non_json_body_are_refused(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    before = await stored(factory)
    headers = {**ada.in_channel(), "Content-Type": "application/json"}
    response = await client.post("/api/bulk/bug", data=b'{"ids": [', headers=headers)
    assert response.status == 400
    assert (await response.json())["error"].startswith("Malformed JSON: ")
    headers["Content-Type"] = "text/plain"
    body = b'{"ids": ["%s"], "priority": "Low"}' % bug["_id"].encode()
    response = await client.post("/api/bulk/bug", data=body, headers=headers)
    assert (response.status, await response.json()) == (
        415,
        {"error": "Content-Type must be application/json."},
    )
    assert await stored(factory) == before


async def test_empty_assigned_to_leaves_assignees_and_a_list_replaces_them(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    one = await create(client, ada, assignedTo=[ada.user.id])
    two = await create(client, ada, assignedTo=[grace.user.id, ada.user.id])
    ids = [one["_id"], two["_id"]]
    assert (await bulk(client, ada, {"ids": ids, "assignedTo": [], "priority": "Low"}))[0] == 200
    _, links, _ = await stored(factory)
    assert sorted(links) == sorted(
        [(one["_id"], ada.user.id, 0), (two["_id"], grace.user.id, 0), (two["_id"], ada.user.id, 1)]
    )
    replace = {"ids": ids, "assignedTo": [grace.user.username, {"email": ada.user.email}]}
    assert await bulk(client, ada, replace) == (200, [ok(one), ok(two)])
    _, links, _ = await stored(factory)
    assert sorted(links) == sorted(
        (item_id, user_id, position)
        for item_id in ids
        for position, user_id in enumerate([grace.user.id, ada.user.id])
    )


async def test_severity_is_ignored_for_tasks(client, factory: Factory) -> None:
    ada = await factory.member()
    task = await create(client, ada, "task")
    body = {"ids": [task["_id"]], "severity": "Critical", "priority": "Urgent"}
    assert await bulk(client, ada, body, "task") == (200, [ok(task)])
    item = (await rows(factory))[task["_id"]]
    assert (item.severity, item.priority) == (None, "Urgent")


async def test_severity_changes_bugs(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    assert await bulk(client, ada, {"ids": [bug["_id"]], "severity": "critical"}) == (
        200,
        [ok(bug)],
    )
    assert (await rows(factory))[bug["_id"]].severity == "Critical"


async def test_null_or_absent_fields_leave_items_unchanged(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bug = await create(
        client,
        ada,
        status="Completed",
        priority="High",
        severity="Low",
        startDate="2026-11-01",
        dueDate="2026-11-30",
        assignedTo=[ada.user.id],
    )
    before = await stored(factory)
    clock.advance(timedelta(hours=1))
    nulls = dict.fromkeys(("status", "priority", "severity", "startDate", "dueDate"), None)
    body = {"ids": [bug["_id"]], **nulls, "completedDate": None, "assignedTo": []}
    assert await bulk(client, ada, body) == (200, [ok(bug)])
    assert await bulk(client, ada, {"ids": [bug["_id"]]}) == (200, [ok(bug)])
    assert await stored(factory) == before


async def test_bulk_edit_into_done_fills_completed_date_and_out_of_done_clears_it(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    open_bug = await create(client, ada, name="Open")
    done_bug = await create(client, ada, name="Done", status="Completed")
    ids = [open_bug["_id"], done_bug["_id"]]
    clock.advance(timedelta(hours=2))
    assert (await bulk(client, ada, {"ids": ids, "status": "Completed"}))[0] == 200
    after = await rows(factory)
    # Moving in fills it; already Done keeps the date it had.
    assert after[open_bug["_id"]].completed_date == NOW + timedelta(hours=2)
    assert after[done_bug["_id"]].completed_date == NOW
    assert (await bulk(client, ada, {"ids": ids, "status": "In Progress"}))[0] == 200
    after = await rows(factory)
    assert [after[i].completed_date for i in ids] == [None, None]
    assert [after[i].status for i in ids] == ["In Progress", "In Progress"]


async def test_bulk_edit_stores_an_explicit_completed_date_as_given(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    open_bug = await create(client, ada, name="Open")
    done_bug = await create(client, ada, name="Done", status="Completed")
    ids = [open_bug["_id"], done_bug["_id"]]
    body = {"ids": ids, "status": "Completed", "completedDate": "2026-10-31T23:00:00-01:00"}
    assert (await bulk(client, ada, body))[0] == 200
    after = await rows(factory)
    assert [after[i].completed_date for i in ids] == [datetime(2026, 11, 1, tzinfo=UTC)] * 2
    body = {"ids": ids, "status": "Not Started", "completedDate": "2026-11-05"}
    assert (await bulk(client, ada, body))[0] == 200
    after = await rows(factory)
    assert [after[i].completed_date for i in ids] == [datetime(2026, 11, 5, tzinfo=UTC)] * 2


async def insert_copies(factory: Factory, template_id: str, count: int) -> list[str]:
    """`count` more bugs like the template, numbered on from it, inserted directly for speed."""
    async with factory.work() as uow:
        template = await uow.session.get(Item, template_id)
        assert template is not None
        base = columns(template)
        copies = []
        for number in range(template.internal_id + 1, template.internal_id + 1 + count):
            item_id = new_id()
            copies.append(
                {
                    **base,
                    "id": item_id,
                    "source_id": item_id,
                    "internal_id": number,
                    "name": f"Bug {number}",
                }
            )
        await uow.session.execute(insert(Item), copies)
        await uow.session.execute(
            update(ItemCounter)
            .where(ItemCounter.channel_id == template.channel_id, ItemCounter.kind == "bug")
            .values(last_internal_id=template.internal_id + count)
        )
    return [copy["id"] for copy in copies]


async def test_a_bulk_edit_of_1000_ids_changes_them_all(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    first = await create(client, ada, name="Bug 1")
    ids = [first["_id"], *await insert_copies(factory, first["_id"], 999)]
    clock.advance(timedelta(hours=1))
    body = {"ids": ids, "status": "Completed", "priority": "Low", "assignedTo": [ada.user.id]}
    status, results = await bulk(client, ada, body)
    assert status == 200
    assert results == [
        {"_id": item_id, "name": f"Bug {n}", "status": "success"}
        for n, item_id in enumerate(ids, start=1)
    ]
    items, links, events = await stored(factory)
    assert len(items) == 1000 and len(links) == 1000 and events == 1 + 1000
    assert {(i["status"], i["priority"], i["completed_date"]) for i in items} == {
        ("Completed", "Low", NOW + timedelta(hours=1))
    }
    assert (await create(client, ada))["internalId"] == 1001

"""PATCH and DELETE of one item as a user sees them: the answer, the details after, the rows."""

from datetime import timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Item, ItemAssignee
from bot.directory.users import remove_member
from tests.factories import TEAM, Factory, Member
from tests.factories import create_item as create


async def patch(
    client: TestClient, member: Member, item_id: str, of: str = "bug", **fields: Any
) -> None:
    response = await client.patch(
        f"/odata/{of}s({item_id})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def details(client: TestClient, member: Member, item_id: str, of: str = "bug") -> dict:
    response = await client.get(f"/api/{of}s/{item_id}/details", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return await response.json()


async def assignee_rows(factory: Factory) -> list[tuple[str, str, int]]:
    async with factory.work() as uow:
        rows = await uow.session.execute(
            select(ItemAssignee.item_id, ItemAssignee.user_id, ItemAssignee.position).order_by(
                ItemAssignee.item_id, ItemAssignee.position
            )
        )
        return [(row.item_id, row.user_id, row.position) for row in rows]


@pytest.mark.parametrize("key", ["{id}", "'{id}'"], ids=["bare", "quoted"])
async def test_patch_answers_204_with_no_body_under_either_key_syntax(
    client, factory: Factory, key: str
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    response = await client.patch(
        f"/odata/bugs({key.format(id=bug['_id'])})",
        json={"name": "Renamed", "priority": "urgent", "severity": "critical", "effort": "5"},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    assert await response.read() == b""
    after = await details(client, ada, bug["_id"])
    assert (after["name"], after["priority"], after["severity"], after["effort"]) == (
        "Renamed",
        "Urgent",
        "Critical",
        "5",
    )


async def test_patch_changes_only_the_fields_sent(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada, body="Steps", owner="Ada", bucket=["ui"], bucketName="UI")
    before = await details(client, ada, bug["_id"])
    await patch(client, ada, bug["_id"], phase="Beta")
    after = await details(client, ada, bug["_id"])
    assert after == {**before, "phase": "Beta"}


async def test_patch_null_clears_nullable_fields(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(
        client,
        ada,
        body="Steps",
        owner="Ada",
        startDate="2026-11-20",
        dueDate="2026-11-25",
        bucket=["ui"],
        bucketName="UI",
    )
    await patch(
        client,
        ada,
        bug["_id"],
        body=None,
        owner=None,
        startDate=None,
        dueDate=None,
        bucket=None,
        bucketName=None,
    )
    after = await details(client, ada, bug["_id"])
    cleared = ("body", "owner", "startDate", "dueDate", "bucket", "bucketName")
    assert {field: after[field] for field in cleared} == {
        "body": None,
        "owner": None,
        "startDate": None,
        "dueDate": None,
        "bucket": [],
        "bucketName": None,
    }


async def test_patch_assigned_to_empty_clears_and_a_list_replaces_in_order(
    client, factory: Factory
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    bug = await create(client, ada, assignedTo=[ada.user.id])
    await patch(client, ada, bug["_id"], assignedTo=[grace.user.username, {"_id": ada.user.id}])
    assert await assignee_rows(factory) == [
        (bug["_id"], grace.user.id, 0),
        (bug["_id"], ada.user.id, 1),
    ]
    assert [u["_id"] for u in (await details(client, ada, bug["_id"]))["assignedTo"]] == [
        grace.user.id,
        ada.user.id,
    ]
    await patch(client, ada, bug["_id"], assignedTo=[])
    assert await assignee_rows(factory) == []
    assert (await details(client, ada, bug["_id"]))["assignedTo"] == []


async def test_an_assignee_who_left_the_team_may_stay_but_not_be_added_again(
    client, factory: Factory
) -> None:
    ada, grace, lin = [await factory.member(name) for name in ("Ada", "Grace", "Lin")]
    bug = await create(client, ada, assignedTo=[ada.user.id, grace.user.id])
    async with factory.work() as uow:
        await remove_member(uow, team_id=TEAM, user_ref=grace.user.id)
    # A client sending the assignees back as they were, plus one, is not refused for Grace.
    await patch(client, ada, bug["_id"], assignedTo=[ada.user.id, grace.user.id, lin.user.id])
    assert [row[1] for row in await assignee_rows(factory)] == [
        ada.user.id,
        grace.user.id,
        lin.user.id,
    ]
    await patch(client, ada, bug["_id"], assignedTo=[ada.user.id])
    response = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={"assignedTo": [ada.user.id, grace.user.id]},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert await response.json() == {
        "error": f"assignedTo: '{grace.user.id}' is not a member of this team"
    }
    assert [row[1] for row in await assignee_rows(factory)] == [ada.user.id]


async def test_patch_into_done_fills_the_completed_date_and_out_of_done_clears_it(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    task = await create(client, ada, "task")
    clock.advance(timedelta(hours=2))
    await patch(client, ada, task["_id"], "task", status="Completed")
    done = await details(client, ada, task["_id"], "task")
    assert (done["status"], done["statusId"]["category"], done["statusValue"]) == (
        "Completed",
        "Done",
        100,
    )
    assert done["completedDate"] == "2026-11-21T11:30:00.000Z"
    clock.advance(timedelta(hours=1))
    await patch(client, ada, task["_id"], "task", name="Still done")
    assert (await details(client, ada, task["_id"], "task"))["completedDate"] == (
        "2026-11-21T11:30:00.000Z"
    )
    await patch(client, ada, task["_id"], "task", status="In Progress")
    reopened = await details(client, ada, task["_id"], "task")
    assert (reopened["status"], reopened["completedDate"]) == ("In Progress", None)


async def test_patch_an_explicit_completed_date_wins_over_the_done_rule(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    await patch(
        client, ada, bug["_id"], status="Completed", completedDate="2026-11-01T08:00:00+02:00"
    )
    assert (await details(client, ada, bug["_id"]))["completedDate"] == ("2026-11-01T06:00:00.000Z")
    await patch(client, ada, bug["_id"], status="Not Started", completedDate="2026-11-02")
    assert (await details(client, ada, bug["_id"]))["completedDate"] == ("2026-11-02T00:00:00.000Z")


async def test_updated_at_and_by_move_only_when_something_changed(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    bug = await create(
        client, ada, status="In Progress", dueDate="2026-11-25T10:00:00Z", assignedTo=[ada.user.id]
    )
    before = await details(client, ada, bug["_id"])
    clock.advance(timedelta(hours=1))
    # The same values, written differently: same name, status in other case, same instant.
    await patch(
        client,
        grace,
        bug["_id"],
        name="A bug",
        status="in progress",
        dueDate="2026-11-25T11:00:00+01:00",
        assignedTo=[{"email": ada.user.email}],
    )
    assert await details(client, ada, bug["_id"]) == before
    await patch(client, grace, bug["_id"], name="Renamed")
    after = await details(client, ada, bug["_id"])
    assert after["updatedAt"] == after["sync"]["at"] == "2026-11-21T10:30:00.000Z"
    assert after["updatedBy"]["displayName"] == "Grace"
    assert after["createdAt"] == "2026-11-21T09:30:00.000Z"
    assert after["createdBy"]["name"] == "Ada"


async def test_patch_a_task_ignores_severity(client, factory: Factory) -> None:
    ada = await factory.member()
    task = await create(client, ada, "task")
    await patch(client, ada, task["_id"], "task", severity="Critical", name="Renamed")
    async with factory.work() as uow:
        item = await uow.session.get(Item, task["_id"])
    assert item is not None and (item.name, item.severity) == ("Renamed", None)


@pytest.mark.parametrize("key", ["{id}", "'{id}'"], ids=["bare", "quoted"])
async def test_delete_answers_204_and_the_item_is_gone_for_good(
    client, factory: Factory, key: str
) -> None:
    ada = await factory.member("Ada")
    grace = await factory.member("Grace")
    kept = await create(client, ada, assignedTo=[ada.user.id])
    doomed = await create(client, ada, assignedTo=[ada.user.id, grace.user.id])
    response = await client.delete(
        f"/odata/bugs({key.format(id=doomed['_id'])})", headers=ada.in_channel()
    )
    assert (response.status, await response.read()) == (204, b"")
    gone = await client.get(f"/api/bugs/{doomed['_id']}/details", headers=ada.in_channel())
    assert (gone.status, await gone.json()) == (404, {"error": f"Bug '{doomed['_id']}' not found."})
    again = await client.delete(f"/odata/bugs({doomed['_id']})", headers=ada.in_channel())
    assert again.status == 404
    async with factory.work() as uow:
        assert list(await uow.session.scalars(select(Item.id))) == [kept["_id"]]
    assert await assignee_rows(factory) == [(kept["_id"], ada.user.id, 0)]
    assert (await details(client, ada, kept["_id"]))["name"] == "A bug"


async def test_a_deleted_items_internal_id_is_never_reused(client, factory: Factory) -> None:
    ada = await factory.member()
    first = await create(client, ada)
    last = await create(client, ada)
    assert (first["internalId"], last["internalId"]) == (1, 2)
    for item in (last, first):
        response = await client.delete(f"/odata/bugs({item['_id']})", headers=ada.in_channel())
        assert response.status == 204
    assert (await create(client, ada))["internalId"] == 3
    assert (await create(client, ada, "task"))["internalId"] == 1


async def test_delete_of_a_task_leaves_bugs_alone(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    task = await create(client, ada, "task")
    wrong_kind = await client.delete(f"/odata/tasks({bug['_id']})", headers=ada.in_channel())
    assert wrong_kind.status == 404
    response = await client.delete(f"/odata/tasks({task['_id']})", headers=ada.in_channel())
    assert response.status == 204
    async with factory.work() as uow:
        assert list(await uow.session.scalars(select(Item.id))) == [bug["_id"]]

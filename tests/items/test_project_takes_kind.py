"""A bug goes only into a project that takes bugs (`enableBug` true; a Planner plan never does):
created there or moved there, it is refused with a 400 naming `projectId`, and nothing changes.
A bug already in a project whose `enableBug` was turned off since stays editable there."""

from typing import Any

from aiohttp.test_utils import TestClient

from tests.factories import Factory, Member, create_item
from tests.items.refusals import stored
from tests.projects.bodies import add_project, jira, native_project, planner

PLANNER_SAID = "projectId: a Planner plan holds tasks only: a Planner project's enableBug is false"
NO_BUGS_SAID = "projectId: this project takes no bugs: its enableBug is false"


async def project_of(client: TestClient, member: Member, item_id: str, of: str = "bug") -> str:
    response = await client.get(f"/api/{of}s/{item_id}/details", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return str((await response.json())["projectId"]["_id"])


async def test_a_bug_is_not_created_in_a_planner_project_and_a_task_is(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    plan = await add_project(client, ada, planner())
    assert plan["enableBug"] is False
    before = await stored(factory)
    refused = await client.post(
        "/odata/bugs",
        json={"name": "Crash", "projectId": plan["_id"]},
        headers=ada.in_channel(),
    )
    assert refused.status == 400
    assert await refused.json() == {"error": PLANNER_SAID}
    assert await stored(factory) == before
    task = await create_item(client, ada, "task", name="Plan it", projectId=plan["_id"])
    assert await project_of(client, ada, task["_id"], "task") == plan["_id"]


async def test_a_bug_is_not_moved_into_a_planner_project(client, factory: Factory) -> None:
    ada = await factory.member()
    plan = await add_project(client, ada, planner())
    native = await native_project(client, ada)
    bug = await create_item(client, ada, name="Crash")
    before = await stored(factory)
    moved = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={"projectId": plan["_id"], "name": "Crash everywhere"},
        headers=ada.in_channel(),
    )
    assert moved.status == 400
    assert await moved.json() == {"error": PLANNER_SAID}
    assert await stored(factory) == before
    assert await project_of(client, ada, bug["_id"]) == native["_id"]


async def test_a_bulk_edit_moves_no_bug_into_a_planner_project(client, factory: Factory) -> None:
    ada = await factory.member()
    plan = await add_project(client, ada, planner())
    native = await native_project(client, ada)
    bugs = [await create_item(client, ada, name=f"Bug {n}") for n in range(2)]
    response = await client.post(
        "/api/bulk/bug",
        json={"ids": [b["_id"] for b in bugs], "projectId": plan["_id"], "priority": "High"},
        headers=ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    assert [r["status"] for r in await response.json()] == ["success", "success"]
    # Bulk edit has no projectId (an unknown field, ignored): the bugs stay where they were.
    assert [await project_of(client, ada, b["_id"]) for b in bugs] == [native["_id"]] * 2


async def test_a_project_whose_bugs_were_turned_off_keeps_its_bugs_and_takes_no_new_ones(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    board = await add_project(client, ada, jira())
    bug = await create_item(client, ada, name="Kept", projectId=board["_id"])
    turned_off = await client.patch(
        f"/api/projects/{board['_id']}", json={"enableBug": False}, headers=ada.in_channel()
    )
    assert turned_off.status == 200, await turned_off.text()
    before = await stored(factory)
    body: dict[str, Any] = {"name": "New", "projectId": board["_id"]}
    refused = await client.post("/odata/bugs", json=body, headers=ada.in_channel())
    assert (refused.status, await refused.json()) == (400, {"error": NO_BUGS_SAID})
    assert await stored(factory) == before
    other = await create_item(client, ada, name="Elsewhere")
    before = await stored(factory)
    moved = await client.patch(
        f"/odata/bugs({other['_id']})", json={"projectId": board["_id"]}, headers=ada.in_channel()
    )
    assert (moved.status, await moved.json()) == (400, {"error": NO_BUGS_SAID})
    assert await stored(factory) == before
    renamed = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Kept, renamed"}, headers=ada.in_channel()
    )
    assert renamed.status == 204, await renamed.text()
    edited = await client.post(
        "/api/bulk/bug", json={"ids": [bug["_id"]], "priority": "Low"}, headers=ada.in_channel()
    )
    assert [r["status"] for r in await edited.json()] == ["success"]
    assert await project_of(client, ada, bug["_id"]) == board["_id"]

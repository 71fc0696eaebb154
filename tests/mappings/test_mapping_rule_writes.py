"""The mapping rule on writes: creates, PATCHes and bulk edits of an external project's items take
only the statuses (and for Azure DevOps bugs, the severities) the project maps; an item may name
only a project of its own channel."""

from sqlalchemy import func, select

from bot.db.tables import Item
from tests.factories import Factory, create_item
from tests.mappings.helpers import NOT_MAPPED, add_status, shown, the_mapping
from tests.projects.bodies import CHANNEL_B, add_project, azure_devops, jira, mappings_of


async def item_count(factory: Factory) -> int:
    async with factory.work() as uow:
        return await uow.session.scalar(select(func.count()).select_from(Item)) or 0


async def test_create_with_an_unmapped_status_names_status_and_project(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await add_status(client, ada, "Review")
    response = await client.post(
        "/odata/bugs",
        json={"name": "b", "status": "review", "projectId": project["_id"]},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert await response.json() == {
        "error": "status: 'Review' is not mapped to a status of project 'Sprint board' (Jira); "
        "map it first (Svc_MAPPING_NOTFOUND)"
    }
    assert await item_count(factory) == 0


async def test_create_refuses_an_unmapped_primary_status(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    mapping = await the_mapping(client, ada, project["_id"], "Task", "1")
    await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel())
    response = await client.post(
        "/odata/tasks", json={"name": "t", "projectId": project["_id"]}, headers=ada.in_channel()
    )
    assert response.status == 400
    assert "'Not Started' is not mapped" in (await response.json())["error"]
    # Bugs keep their mapping of that state.
    bug = await create_item(client, ada, projectId=project["_id"])
    assert (bug["status"], bug["source"]) == ("Not Started", "Jira")
    assert await item_count(factory) == 1


async def test_patch_to_an_unmapped_status_is_refused(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await add_status(client, ada, "Review")
    bug = await create_item(client, ada, projectId=project["_id"])
    response = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={"status": "Review", "name": "renamed"},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert (
        "'Review' is not mapped to a status of project 'Sprint board'"
        in (await response.json())["error"]
    )
    details = await client.get(f"/api/bugs/{bug['_id']}/details", headers=ada.in_channel())
    assert ((await details.json())["name"], (await details.json())["status"]) == (
        "A bug",
        "Not Started",
    )


async def test_moving_an_item_to_a_project_needs_its_status_mapped(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await add_status(client, ada, "Review")
    native_bug = await create_item(client, ada, status="Review")
    response = await client.patch(
        f"/odata/bugs({native_bug['_id']})",
        json={"projectId": project["_id"]},
        headers=ada.in_channel(),
    )
    assert response.status == 400
    assert "'Review' is not mapped" in (await response.json())["error"]
    assert await shown(client, ada, native_bug) == ("Review", None)
    # With a mapped status the move is fine, and the item takes the project's source.
    moved = await client.patch(
        f"/odata/bugs({native_bug['_id']})",
        json={"projectId": project["_id"], "status": "In Progress"},
        headers=ada.in_channel(),
    )
    assert moved.status == 204
    details = await client.get(f"/api/bugs/{native_bug['_id']}/details", headers=ada.in_channel())
    body = await details.json()
    assert (body["source"], body["projectId"]["_id"], body["status"]) == (
        "Jira",
        project["_id"],
        "In Progress",
    )


async def test_an_item_cannot_name_a_project_of_another_channel(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    of_b = await client.post(
        "/api/projects", json=jira(), headers=ada.in_channel(channel=CHANNEL_B)
    )
    foreign = (await of_b.json())["_id"]
    error = {"error": f"projectId: '{foreign}' is not a project of this channel"}
    created = await client.post(
        "/odata/bugs", json={"name": "b", "projectId": foreign}, headers=ada.in_channel()
    )
    assert (created.status, await created.json()) == (400, error)
    bug = await create_item(client, ada)
    moved = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"projectId": foreign}, headers=ada.in_channel()
    )
    assert (moved.status, await moved.json()) == (400, error)
    assert await item_count(factory) == 1


async def test_bulk_to_an_unmapped_status_fails_only_the_external_items(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await add_status(client, ada, "Review")
    external = await create_item(client, ada, projectId=project["_id"], name="external")
    native = await create_item(client, ada, name="native")
    response = await client.post(
        "/api/bulk/bug",
        json={"ids": [external["_id"], native["_id"]], "status": "Review"},
        headers=ada.in_channel(),
    )
    assert response.status == 200
    assert await response.json() == [
        {"_id": external["_id"], "name": "external", "status": "error", "error": NOT_MAPPED},
        {"_id": native["_id"], "name": "native", "status": "success"},
    ]
    assert await shown(client, ada, external) == ("Not Started", None)
    assert await shown(client, ada, native) == ("Review", None)


async def test_bulk_to_an_unmapped_severity_fails_azure_devops_bugs_only(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    ado = await add_project(client, ada, azure_devops())
    other = await add_project(client, ada, jira())
    (critical,) = await mappings_of(
        client, ada, ado["_id"], type="severity", sourceId="1 - Critical"
    )
    await client.delete(f"/odata/_fieldMappings({critical['_id']})", headers=ada.in_channel())
    ado_bug = await create_item(client, ada, projectId=ado["_id"], name="ado")
    jira_bug = await create_item(client, ada, projectId=other["_id"], name="jira")
    native_bug = await create_item(client, ada, name="native")
    ids = [ado_bug["_id"], jira_bug["_id"], native_bug["_id"]]
    response = await client.post(
        "/api/bulk/bug", json={"ids": ids, "severity": "Critical"}, headers=ada.in_channel()
    )
    assert [r["status"] for r in await response.json()] == ["error", "success", "success"]
    assert (await response.json())[0]["error"] == NOT_MAPPED
    # A severity still mapped is fine for the Azure DevOps bug too.
    response = await client.post(
        "/api/bulk/bug", json={"ids": ids, "severity": "High"}, headers=ada.in_channel()
    )
    assert [r["status"] for r in await response.json()] == ["success"] * 3
    # Create and PATCH refuse the unmapped severity with the 400.
    created = await client.post(
        "/odata/bugs",
        json={"name": "b", "severity": "Critical", "projectId": ado["_id"]},
        headers=ada.in_channel(),
    )
    assert created.status == 400
    assert (await created.json())["error"].startswith(
        "severity: 'Critical' is not mapped to a severity of project 'Fabrikam Fiber'"
    )
    patched = await client.patch(
        f"/odata/bugs({ado_bug['_id']})", json={"severity": "Critical"}, headers=ada.in_channel()
    )
    assert patched.status == 400
    # Tasks have no severity: the same bulk on tasks is fine.
    task = await create_item(client, ada, of="task", projectId=ado["_id"])
    response = await client.post(
        "/api/bulk/task",
        json={"ids": [task["_id"]], "severity": "Critical"},
        headers=ada.in_channel(),
    )
    assert [r["status"] for r in await response.json()] == ["success"]

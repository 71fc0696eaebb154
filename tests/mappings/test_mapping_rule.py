"""Seed rule 2 everywhere: items of an external project use mapped statuses (and Azure DevOps
bugs mapped severities) only; when a mapping goes, its items show `Invalid` until it is back."""

from typing import Any

from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.db.tables import Item
from tests.factories import Factory, Member, create_item
from tests.projects.bodies import (
    CHANNEL_B,
    add_project,
    azure_devops,
    field_ids,
    jira,
    mappings_of,
)

NOT_MAPPED = "Svc_MAPPING_NOTFOUND"


async def shown(client: TestClient, member: Member, item: dict[str, Any], of: str = "bug") -> tuple:
    """(status, sync.status) as the item's details show them."""
    response = await client.get(f"/api/{of}s/{item['_id']}/details", headers=member.in_channel())
    assert response.status == 200
    details = await response.json()
    return details["status"], details["sync"]["status"]


async def invalid_list(client: TestClient, member: Member, of: str = "bug") -> tuple[set, int]:
    """The ids the invalid view lists and its count (the cached count, when one is cached)."""
    response = await client.get(
        f"/odata/{of}s",
        params={"$filter": "status eq 'Invalid'", "$count": "true"},
        headers=member.in_channel(),
    )
    assert response.status == 200
    page = await response.json()
    return {item["_id"] for item in page["value"]}, page["@odata.count"]


async def the_mapping(
    client: TestClient, member: Member, project_id: str, kind: str, source_id: str
) -> dict[str, Any]:
    (mapping,) = await mappings_of(
        client, member, project_id, entityType=kind, type="status", sourceId=source_id
    )
    return mapping


async def item_count(factory: Factory) -> int:
    async with factory.work() as uow:
        return await uow.session.scalar(select(func.count()).select_from(Item)) or 0


async def add_status(client: TestClient, member: Member, name: str, kind: str = "Bug") -> str:
    response = await client.post(
        "/odata/status",
        json={"name": name, "type": kind, "category": "Active"},
        headers=member.in_channel(),
    )
    assert response.status == 201
    return (await response.json())["_id"]


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


async def test_deleting_a_mapping_makes_its_items_invalid_in_details_and_lists(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    mapped = await create_item(client, ada, projectId=project["_id"], name="to do")
    other_status = await create_item(
        client, ada, projectId=project["_id"], name="doing", status="In Progress"
    )
    native = await create_item(client, ada, name="native")
    task = await create_item(client, ada, of="task", projectId=project["_id"])
    assert await invalid_list(client, ada) == (set(), 0)  # counted, and cached
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "1")
    response = await client.delete(
        f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel()
    )
    assert response.status == 204
    assert await shown(client, ada, mapped) == ("Invalid", NOT_MAPPED)
    assert await invalid_list(client, ada) == ({mapped["_id"]}, 1)
    listed = await (await client.get("/odata/bugs", headers=ada.in_channel())).json()
    by_id = {b["_id"]: (b["status"], b["sync"]["status"]) for b in listed["value"]}
    assert by_id == {
        mapped["_id"]: ("Invalid", NOT_MAPPED),
        other_status["_id"]: ("In Progress", None),
        native["_id"]: ("Not Started", None),
    }
    assert await shown(client, ada, task, of="task") == ("Not Started", None)
    # Mapping the state again (to the same status) brings the name back.
    recreated = await client.post(
        "/odata/_fieldMappings",
        json={
            "fieldId": mapping["fieldId"],
            "projectId": project["_id"],
            "sourceId": "1",
            "type": "status",
            "entityType": "Bug",
        },
        headers=ada.in_channel(),
    )
    assert recreated.status == 201
    assert await shown(client, ada, mapped) == ("Not Started", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_disabling_a_mapping_counts_as_unmapped(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    assert await invalid_list(client, ada) == (set(), 0)
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "1")
    path = f"/odata/_fieldMappings({mapping['_id']})"
    assert (
        await client.patch(path, json={"enable": False}, headers=ada.in_channel())
    ).status == 204
    assert await shown(client, ada, bug) == ("Invalid", NOT_MAPPED)
    assert await invalid_list(client, ada) == ({bug["_id"]}, 1)
    refused = await client.post(
        "/odata/bugs", json={"name": "b", "projectId": project["_id"]}, headers=ada.in_channel()
    )
    assert refused.status == 400
    assert (await client.patch(path, json={"enable": True}, headers=ada.in_channel())).status == 204
    assert await shown(client, ada, bug) == ("Not Started", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_remapping_a_state_judges_the_items_again(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    review = await add_status(client, ada, "Review")
    doing = await create_item(client, ada, projectId=project["_id"], status="In Progress")
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "3")
    response = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={"fieldId": review},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    # In Progress lost its only mapping for this project; Review gained one.
    assert await shown(client, ada, doing) == ("Invalid", NOT_MAPPED)
    fixed = await client.patch(
        f"/odata/bugs({doing['_id']})", json={"status": "Review"}, headers=ada.in_channel()
    )
    assert fixed.status == 204
    assert await shown(client, ada, doing) == ("Review", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_an_invalid_item_can_be_edited_and_given_a_mapped_status(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    other = await create_item(client, ada, projectId=project["_id"], name="other")
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "1")
    await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel())
    renamed = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "still invalid"}, headers=ada.in_channel()
    )
    assert renamed.status == 204
    assert await shown(client, ada, bug) == ("Invalid", NOT_MAPPED)
    response = await client.post(
        "/api/bulk/bug",
        json={"ids": [bug["_id"], other["_id"]], "status": "Completed"},
        headers=ada.in_channel(),
    )
    assert [r["status"] for r in await response.json()] == ["success", "success"]
    assert await shown(client, ada, bug) == ("Completed", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_renaming_a_status_keeps_invalid_items_invalid(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    other = await add_project(client, ada, azure_devops())
    invalid = await create_item(client, ada, projectId=project["_id"], name="jira")
    mapped = await create_item(client, ada, projectId=other["_id"], name="ado")
    native = await create_item(client, ada, name="native")
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "1")
    await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel())
    assert await invalid_list(client, ada) == ({invalid["_id"]}, 1)
    status_id = (await field_ids(factory, "status", "Bug"))["Not Started"]
    response = await client.patch(
        f"/odata/status({status_id})", json={"name": "Open"}, headers=ada.in_channel()
    )
    assert response.status == 204
    assert await shown(client, ada, invalid) == ("Invalid", NOT_MAPPED)
    assert await shown(client, ada, mapped) == ("Open", None)
    assert await shown(client, ada, native) == ("Open", None)
    assert await invalid_list(client, ada) == ({invalid["_id"]}, 1)
    # Mapped again, the item shows the status's new name.
    await client.post(
        "/odata/_fieldMappings",
        json={
            "fieldId": status_id,
            "projectId": project["_id"],
            "sourceId": "1",
            "type": "status",
            "entityType": "Bug",
        },
        headers=ada.in_channel(),
    )
    assert await shown(client, ada, invalid) == ("Open", None)


async def test_native_items_never_need_a_mapping(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    for mapping in await mappings_of(client, ada, project["_id"]):
        await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel())
    await add_status(client, ada, "Review")
    native = await create_item(client, ada, status="Review")
    patched = await client.patch(
        f"/odata/bugs({native['_id']})", json={"status": "Completed"}, headers=ada.in_channel()
    )
    assert patched.status == 204
    response = await client.post(
        "/api/bulk/bug",
        json={"ids": [native["_id"]], "status": "Review"},
        headers=ada.in_channel(),
    )
    assert [r["status"] for r in await response.json()] == ["success"]
    assert await shown(client, ada, native) == ("Review", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_an_invalid_item_moved_to_the_native_project_shows_its_status(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "1")
    await client.delete(f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel())
    assert await shown(client, ada, bug) == ("Invalid", NOT_MAPPED)
    native = await client.get(
        "/api/projects", params={"$filter": "source eq 'Svc.Native'"}, headers=ada.in_channel()
    )
    native_id = (await native.json())["value"][0]["_id"]
    moved = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"projectId": native_id}, headers=ada.in_channel()
    )
    assert moved.status == 204
    assert await shown(client, ada, bug) == ("Not Started", None)
    assert await invalid_list(client, ada) == (set(), 0)


async def test_deleting_a_mapped_status_frees_its_source_state(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    review = await add_status(client, ada, "Review")
    mapping = await the_mapping(client, ada, project["_id"], "Bug", "3")
    await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={"fieldId": review},
        headers=ada.in_channel(),
    )
    bug = await create_item(client, ada, projectId=project["_id"], status="Review")
    deleted = await client.delete(f"/odata/status({review})", headers=ada.in_channel())
    assert deleted.status == 204
    assert await shown(client, ada, bug) == ("Invalid", NOT_MAPPED)
    assert await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3") == []
    remapped = await client.post(
        "/odata/_fieldMappings",
        json={
            "fieldId": (await field_ids(factory, "status", "Bug"))["In Progress"],
            "projectId": project["_id"],
            "sourceId": "3",
            "type": "status",
            "entityType": "Bug",
        },
        headers=ada.in_channel(),
    )
    assert remapped.status == 201
    # The item's status is gone: it stays Invalid until it is given one.
    assert await shown(client, ada, bug) == ("Invalid", NOT_MAPPED)

"""The mapping rule when a mapping goes: its items show `Invalid` in details and lists (counts too)
until the state is mapped again, may still be edited and given a mapped status, and native
items never need a mapping."""

from aiohttp.test_utils import TestClient

from tests.factories import Factory, Member, create_item
from tests.mappings.helpers import NOT_MAPPED, add_status, shown, the_mapping
from tests.projects.bodies import add_project, azure_devops, field_ids, jira, mappings_of


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

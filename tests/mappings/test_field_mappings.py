"""`_fieldMappings`: list, create, change, delete; every refusal changes nothing."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import FieldMapping
from tests.factories import Factory, Member
from tests.projects.bodies import (
    CHANNEL_B,
    UNKNOWN_ID,
    add_project,
    azure_devops,
    field_ids,
    jira,
    mappings_of,
    native_project,
    planner,
)

DUPLICATE = {"code": "Duplicate mapping", "message": "Duplicate mapping"}


async def stored(factory: Factory) -> list[tuple[Any, ...]]:
    """Every mapping row as stored: what a refusal must leave as it was."""
    async with factory.work() as uow:
        rows = await uow.session.scalars(select(FieldMapping).order_by(FieldMapping.id))
        return [tuple(getattr(row, c.key) for c in FieldMapping.__table__.columns) for row in rows]


async def unmap(
    client: TestClient, member: Member, project_id: str, kind: str, source_id: str
) -> None:
    """Delete the default mapping of one source state, so the tests can map it themselves."""
    (mapping,) = [
        m
        for m in await mappings_of(client, member, project_id, entityType=kind, type="status")
        if m["sourceId"] == source_id
    ]
    response = await client.delete(
        f"/odata/_fieldMappings({mapping['_id']})", headers=member.in_channel()
    )
    assert response.status == 204


async def add_status(client: TestClient, member: Member, name: str, kind: str = "Bug") -> str:
    response = await client.post(
        "/odata/status",
        json={"name": name, "type": kind, "category": "Active"},
        headers=member.in_channel(),
    )
    assert response.status == 201
    return (await response.json())["_id"]


async def test_create_answers_201_with_the_derived_fields(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Bug", "3")
    review = await add_status(client, ada, "Review")
    body = {
        "fieldId": review,
        "projectId": project["_id"],
        "sourceId": "3",
        "type": "status",
        "entityType": "Bug",
        # Derived fields sent anyway are ignored.
        "fieldName": "Something else",
        "projectHostname": "elsewhere.example",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201, await response.text()
    mapping = await response.json()
    assert {k: v for k, v in mapping.items() if not k.startswith("@") and k != "_id"} == {
        "fieldId": review,
        "fieldName": "Review",
        "projectId": project["_id"],
        "projectHostname": "contoso.atlassian.net",
        "source": "Jira",
        "sourceId": "3",
        "sourceName": "In Progress",  # from the catalogue
        "enable": True,
        "type": "status",
        "entityType": "Bug",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }
    listed = await mappings_of(client, ada, project["_id"], sourceId="3", entityType="Bug")
    assert listed == [mapping]


async def test_create_takes_the_given_source_name_enable_and_matching_source(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Task", "3")
    body = {
        "fieldId": (await field_ids(factory, "status", "Task"))["In Progress"],
        "projectId": project["_id"],
        "sourceId": "3",
        "sourceName": "Doing",
        "enable": False,
        "source": "Jira",
        "type": "status",
        "entityType": "Task",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201
    mapping = await response.json()
    assert (mapping["sourceName"], mapping["enable"]) == ("Doing", False)


async def test_priorities_map_free_source_values(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    priorities = await field_ids(factory, "priority", "Bug")
    body = {
        "fieldId": priorities["High"],
        "projectId": project["_id"],
        "sourceId": "2",
        "type": "priority",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 201
    assert (await response.json())["sourceName"] == "2"
    # Several source values may share one channel value.
    second = await client.post(
        "/odata/_fieldMappings",
        json={**body, "sourceId": "Highest", "sourceName": "Highest"},
        headers=ada.in_channel(),
    )
    assert second.status == 201


async def test_mapping_a_source_value_twice_is_the_duplicate_400(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    before = await stored(factory)
    body = {
        "fieldId": await add_status(client, ada, "Review"),
        "projectId": project["_id"],
        "sourceId": "3",  # mapped by default to In Progress
        "type": "status",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert await response.json() == DUPLICATE
    assert await stored(factory) == before


async def test_an_azure_devops_severity_maps_once(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, azure_devops())
    severities = await field_ids(factory, "severity", "Bug")
    body = {
        "fieldId": severities["High"],
        "projectId": project["_id"],
        "sourceId": "1 - Critical",
        "type": "severity",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert await response.json() == DUPLICATE
    unknown = await client.post(
        "/odata/_fieldMappings",
        json={**body, "sourceId": "5 - Trivial"},
        headers=ada.in_channel(),
    )
    assert unknown.status == 400
    assert await unknown.json() == {
        "error": "sourceId: '5 - Trivial' is not a severity of project 'Fabrikam Fiber' "
        "(one of: 1 - Critical, 2 - High, 3 - Medium, 4 - Low)"
    }


@pytest.mark.parametrize(
    ("change", "error"),
    [
        pytest.param(
            {"fieldId": UNKNOWN_ID},
            f"fieldId: '{UNKNOWN_ID}' is not a status of Bug items here",
            id="unknown-field",
        ),
        pytest.param(
            {"fieldId": "nope"}, "fieldId: 'nope' is not a status of Bug items here", id="bad-id"
        ),
        pytest.param(
            {"fieldId": ("priority", "Bug", "High")},
            "is not a status of Bug items here",
            id="a-priority-as-status",
        ),
        pytest.param(
            {"fieldId": ("status", "Task", "In Progress")},
            "is not a status of Bug items here",
            id="a-task-status-for-bugs",
        ),
        pytest.param(
            {"sourceId": "7"},
            "sourceId: '7' is not a status of project 'Sprint board' (one of: 1, 3, 10001)",
            id="not-in-catalogue",
        ),
        pytest.param(
            {"type": "severity", "entityType": "Task"},
            "entityType: only bugs have severities",
            id="severity-of-a-task",
        ),
        pytest.param(
            {"source": "Microsoft.Planner"},
            "source: 'Microsoft.Planner' contradicts the project's source",
            id="contradicting-source",
        ),
        pytest.param(
            {"projectId": UNKNOWN_ID},
            f"projectId: '{UNKNOWN_ID}' is not a project of this channel",
            id="unknown-project",
        ),
        pytest.param({"type": "colour"}, "type: ", id="bad-type"),
        pytest.param({"entityType": "Epic"}, "entityType: ", id="bad-entity-type"),
        pytest.param({"sourceId": " "}, "sourceId: ", id="blank-source-id"),
        pytest.param({"fieldId": None}, "fieldId: ", id="null-field"),
    ],
)
async def test_refused_creates_name_the_problem_and_change_nothing(
    client, factory: Factory, change: dict[str, Any], error: str
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Bug", "3")
    if isinstance(change.get("fieldId"), tuple):
        field, kind, name = change["fieldId"]
        change = {"fieldId": (await field_ids(factory, field, kind))[name]}
    body = {
        "fieldId": await add_status(client, ada, "Review"),
        "projectId": project["_id"],
        "sourceId": "3",
        "type": "status",
        "entityType": "Bug",
        **change,
    }
    before = await stored(factory)
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert error in (await response.json())["error"]
    assert await stored(factory) == before


async def test_the_native_project_takes_no_mapping(client, factory: Factory) -> None:
    ada = await factory.member()
    native = await native_project(client, ada)
    body = {
        "fieldId": (await field_ids(factory, "status", "Bug"))["In Progress"],
        "projectId": native["_id"],
        "sourceId": "x",
        "type": "status",
        "entityType": "Bug",
    }
    response = await client.post("/odata/_fieldMappings", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert await response.json() == {"error": "projectId: the native project needs no mapping"}


async def test_values_and_projects_of_another_channel_are_refused(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    in_b = ada.in_channel(channel=CHANNEL_B)
    b_project = await client.post("/api/projects", json=jira(), headers=in_b)
    b_status = await client.post(
        "/odata/status", json={"name": "B", "type": "Bug", "category": "Active"}, headers=in_b
    )
    b_project_id = (await b_project.json())["_id"]
    b_status_id = (await b_status.json())["_id"]
    project = await add_project(client, ada, jira())
    await unmap(client, ada, project["_id"], "Bug", "3")
    body = {
        "fieldId": await add_status(client, ada, "Review"),
        "projectId": project["_id"],
        "sourceId": "3",
        "type": "status",
        "entityType": "Bug",
    }
    before = await stored(factory)
    foreign_value = await client.post(
        "/odata/_fieldMappings", json={**body, "fieldId": b_status_id}, headers=ada.in_channel()
    )
    assert await foreign_value.json() == {
        "error": f"fieldId: '{b_status_id}' is not a status of Bug items here"
    }
    foreign_project = await client.post(
        "/odata/_fieldMappings",
        json={**body, "projectId": b_project_id},
        headers=ada.in_channel(),
    )
    assert await foreign_project.json() == {
        "error": f"projectId: '{b_project_id}' is not a project of this channel"
    }
    assert await stored(factory) == before
    # Nor can the mapping of one be changed to the other channel's value.
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="1")
    moved = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={"fieldId": b_status_id},
        headers=ada.in_channel(),
    )
    assert moved.status == 400
    moved = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={"projectId": b_project_id},
        headers=ada.in_channel(),
    )
    assert moved.status == 400
    assert await stored(factory) == before


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"$filter": "type eq 'severity'"}, 4),
        ({"$filter": "entityType eq 'Task'"}, 3 + 4),
        ({"$filter": "entityType eq 'Bug' and type eq 'status'"}, 3 + 4),
        ({"$filter": "source eq 'Jira'"}, 6),
        ({"$filter": "fieldName eq 'In Progress'"}, 2 + 4),
        ({"$filter": "startswith(sourceName, '1 -')"}, 1),
        ({"$top": "2"}, 2),
    ],
)
async def test_the_list_takes_odata_filters(
    client, factory: Factory, options: dict[str, str], expected: int
) -> None:
    ada = await factory.member()
    await add_project(client, ada, jira())
    await add_project(client, ada, azure_devops())
    response = await client.get(
        "/odata/_fieldMappings", params={**options, "$count": "true"}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    page = await response.json()
    assert len(page["value"]) == expected
    assert page["@odata.count"] == (18 if "$top" in options else expected)


async def test_the_list_filters_on_project(client, factory: Factory) -> None:
    ada = await factory.member()
    jira_project = await add_project(client, ada, jira())
    planner_project = await add_project(client, ada, planner())
    for project in (jira_project, planner_project):
        found = await mappings_of(client, ada, project["_id"])
        assert {m["projectId"] for m in found} == {project["_id"]}
        assert len(found) == 6
    bad = await client.get(
        "/odata/_fieldMappings", params={"$filter": "colour eq 1"}, headers=ada.in_channel()
    )
    assert bad.status == 400
    assert (await bad.json())["error"].startswith("Invalid $filter")


async def test_patch_remaps_renames_and_disables(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    review = await add_status(client, ada, "Review")
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    for key in (mapping["_id"], f"'{mapping['_id']}'"):
        response = await client.patch(
            f"/odata/_fieldMappings({key})",
            json={"fieldId": review, "sourceName": "Doing", "enable": False},
            headers=ada.in_channel(),
        )
        assert response.status == 204
    (changed,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    assert (changed["fieldId"], changed["fieldName"], changed["sourceName"], changed["enable"]) == (
        review,
        "Review",
        "Doing",
        False,
    )


async def test_patch_moves_to_a_free_source_value_only(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, azure_devops())
    (resolved,) = await mappings_of(
        client, ada, project["_id"], entityType="Bug", sourceId="Resolved"
    )
    before = await stored(factory)
    taken = await client.patch(
        f"/odata/_fieldMappings({resolved['_id']})",
        json={"sourceId": "Active"},
        headers=ada.in_channel(),
    )
    assert taken.status == 400
    assert await taken.json() == DUPLICATE
    assert await stored(factory) == before
    await unmap(client, ada, project["_id"], "Bug", "New")
    moved = await client.patch(
        f"/odata/_fieldMappings({resolved['_id']})",
        json={"sourceId": "New"},
        headers=ada.in_channel(),
    )
    assert moved.status == 204
    (now,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="New")
    assert (now["_id"], now["sourceName"], now["fieldName"]) == (
        resolved["_id"],
        "New",
        "In Progress",
    )


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"projectId": UNKNOWN_ID}, "projectId"),
        ({"type": "priority"}, "type"),
        ({"entityType": "Task"}, "entityType"),
        ({"source": "Microsoft.Vsts"}, "source"),
        ({"fieldId": None}, "fieldId"),
        ({"sourceId": None}, "sourceId"),
        ({"sourceName": None}, "sourceName"),
        ({"enable": None}, "enable"),
        ({"sourceId": "7"}, "sourceId"),
        ({"fieldId": UNKNOWN_ID}, "fieldId"),
    ],
)
async def test_patch_refuses_fixed_fields_and_nulls(
    client, factory: Factory, body: dict[str, Any], field: str
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    before = await stored(factory)
    response = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})", json=body, headers=ada.in_channel()
    )
    assert response.status == 400
    assert (await response.json())["error"].startswith(f"{field}: ")
    assert await stored(factory) == before


async def test_patch_accepts_the_fixed_fields_unchanged(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    same = {k: mapping[k] for k in ("projectId", "type", "entityType", "source")}
    response = await client.patch(
        f"/odata/_fieldMappings({mapping['_id']})",
        json={**same, "sourceName": "Doing"},
        headers=ada.in_channel(),
    )
    assert response.status == 204
    (changed,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    assert changed["sourceName"] == "Doing"


async def test_delete_removes_the_mapping(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    (mapping,) = await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3")
    response = await client.delete(
        f"/odata/_fieldMappings('{mapping['_id']}')", headers=ada.in_channel()
    )
    assert response.status == 204
    assert await mappings_of(client, ada, project["_id"], entityType="Bug", sourceId="3") == []
    again = await client.delete(
        f"/odata/_fieldMappings({mapping['_id']})", headers=ada.in_channel()
    )
    assert again.status == 404


async def test_unknown_malformed_and_foreign_mappings_are_not_found(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    in_b = ada.in_channel(channel=CHANNEL_B)
    await client.post("/api/projects", json=jira(), headers=in_b)
    b_mappings = await (await client.get("/odata/_fieldMappings", headers=in_b)).json()
    foreign = b_mappings["value"][0]["_id"]
    before = await stored(factory)
    for key in (UNKNOWN_ID, "nope", foreign):
        for method, body in (("PATCH", {"enable": False}), ("DELETE", None)):
            response = await client.request(
                method, f"/odata/_fieldMappings({key})", json=body, headers=ada.in_channel()
            )
            assert response.status == 404
            assert await response.json() == {"error": f"Mapping '{key}' not found."}
    listed = await (await client.get("/odata/_fieldMappings", headers=ada.in_channel())).json()
    assert listed["value"] == []
    assert await stored(factory) == before

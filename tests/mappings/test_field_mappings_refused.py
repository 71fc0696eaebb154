"""`_fieldMappings` creates refused: each names the problem (a value, source state, kind or
project that does not fit; the native project; another channel's value or project) and changes
nothing."""

from typing import Any

import pytest

from tests.factories import Factory
from tests.mappings.helpers import add_status, stored, unmap
from tests.projects.bodies import (
    CHANNEL_B,
    UNKNOWN_ID,
    add_project,
    field_ids,
    jira,
    mappings_of,
    native_project,
)


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

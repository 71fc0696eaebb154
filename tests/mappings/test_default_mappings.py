"""The mappings a newly configured project starts with, so it works at once (docs/api.md)."""

from tests.factories import Factory, create_item
from tests.projects.bodies import (
    add_project,
    azure_devops,
    field_ids,
    jira,
    mappings_of,
    pairs,
    planner,
)

BASE = "http://127.0.0.1:3978"


async def test_planner_maps_its_three_states_for_each_kind(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner())
    found = await mappings_of(client, ada, project["_id"])
    assert pairs(found) == {
        (kind, state, status)
        for kind in ("Task", "Bug")
        for state, status in (
            ("PLSTT-NotStarted", "Not Started"),
            ("PLSTT-InProgress", "In Progress"),
            ("PLSTT-Completed", "Completed"),
        )
    }
    statuses = await field_ids(factory, "status", "Bug")
    (mapping,) = [
        m for m in found if m["entityType"] == "Bug" and m["sourceId"] == "PLSTT-Completed"
    ]
    link = f"{BASE}/odata/_fieldMappings('{mapping['_id']}')"
    assert mapping == {
        "@odata.context": f"{BASE}/odata/$metadata#_fieldMappings/$entity",
        "@odata.editLink": link,
        "@odata.id": link,
        "_id": mapping["_id"],
        "fieldId": statuses["Completed"],
        "fieldName": "Completed",
        "projectId": project["_id"],
        "projectHostname": "",
        "source": "Microsoft.Planner",
        "sourceId": "PLSTT-Completed",
        "sourceName": "Completed",
        "enable": True,
        "type": "status",
        "entityType": "Bug",
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }


async def test_jira_maps_by_category_to_the_lowest_order(client, factory: Factory) -> None:
    ada = await factory.member()
    # A second New status for bugs, ordered before Not Started: it takes Jira's New state.
    triage = await client.post(
        "/odata/status",
        json={"name": "Triage", "type": "Bug", "category": "New", "order": 0},
        headers=ada.in_channel(),
    )
    assert triage.status == 201
    # A second Done status ordered after Completed changes nothing.
    await client.post(
        "/odata/status",
        json={"name": "Shipped", "type": "Bug", "category": "Done"},
        headers=ada.in_channel(),
    )
    project = await add_project(client, ada, jira())
    assert pairs(await mappings_of(client, ada, project["_id"])) == {
        ("Bug", "1", "Triage"),
        ("Bug", "3", "In Progress"),
        ("Bug", "10001", "Completed"),
        ("Task", "1", "Not Started"),
        ("Task", "3", "In Progress"),
        ("Task", "10001", "Completed"),
    }


async def test_azure_devops_maps_states_and_bug_severities(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, azure_devops())
    states = await mappings_of(client, ada, project["_id"], type="status")
    # Two states of one category share its status.
    assert pairs(states) == {
        (kind, state, status)
        for kind in ("Task", "Bug")
        for state, status in (
            ("New", "Not Started"),
            ("Active", "In Progress"),
            ("Resolved", "In Progress"),
            ("Closed", "Completed"),
        )
    }
    severities = await mappings_of(client, ada, project["_id"], type="severity")
    assert {
        (m["entityType"], m["sourceId"], m["sourceName"], m["fieldName"]) for m in severities
    } == {
        ("Bug", "1 - Critical", "1 - Critical", "Critical"),
        ("Bug", "2 - High", "2 - High", "High"),
        ("Bug", "3 - Medium", "3 - Medium", "Medium"),
        ("Bug", "4 - Low", "4 - Low", "Low"),
    }
    assert all(m["projectHostname"] == "dev.azure.com/fabrikam" for m in states + severities)


async def test_only_azure_devops_maps_severities(client, factory: Factory) -> None:
    ada = await factory.member()
    for body in (jira(), planner()):
        project = await add_project(client, ada, body)
        assert await mappings_of(client, ada, project["_id"], type="severity") == []
        assert await mappings_of(client, ada, project["_id"], type="priority") == []


async def test_a_status_created_afterwards_starts_unmapped(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    before = await mappings_of(client, ada, project["_id"])
    review = await client.post(
        "/odata/status",
        json={"name": "Review", "type": "Bug", "category": "Active", "order": 0},
        headers=ada.in_channel(),
    )
    assert review.status == 201
    assert await mappings_of(client, ada, project["_id"]) == before
    refused = await client.post(
        "/odata/bugs",
        json={"name": "b", "status": "Review", "projectId": project["_id"]},
        headers=ada.in_channel(),
    )
    assert refused.status == 400
    # The native project needs no mapping.
    assert (await create_item(client, ada, status="Review"))["status"] == "Review"

"""Changing and removing projects: what may change, the state catalogue and its mappings, and
what deletion refuses."""

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.clock import FrozenClock
from bot.db.tables import FieldMapping
from tests.factories import Factory, Member, create_item
from tests.projects.bodies import (
    JIRA_STATES,
    add_project,
    jira,
    mappings_of,
    native_project,
    pairs,
    planner,
)


async def patch(client, member: Member, project_id: str, body: dict[str, Any]):  # noqa: ANN001, ANN201
    return await client.patch(f"/api/projects/{project_id}", json=body, headers=member.in_channel())


async def details(client, member: Member, bug_id: str, of: str = "bug") -> dict[str, Any]:  # noqa: ANN001
    response = await client.get(f"/api/{of}s/{bug_id}/details", headers=member.in_channel())
    assert response.status == 200
    return await response.json()


@pytest.mark.parametrize(
    ("body", "field", "value"),
    [
        ({"displayName": "Renamed"}, "displayName", "Renamed"),
        ({"projectName": "SB-2"}, "projectName", "SB-2"),
        ({"hostname": "fabrikam.atlassian.net"}, "hostname", "fabrikam.atlassian.net"),
        ({"enable": False}, "enable", False),
        ({"enableBug": False}, "enableBug", False),
        ({"color": "#123456"}, "color", "#123456"),
    ],
)
async def test_patch_changes_the_field_sent_and_only_it(
    client, factory: Factory, clock: FrozenClock, body: dict[str, Any], field: str, value: Any
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    clock.advance(timedelta(minutes=5))
    response = await patch(client, ada, project["_id"], body)
    assert response.status == 200, await response.text()
    changed = await response.json()
    assert changed == {**project, field: value, "updatedAt": "2026-11-21T09:35:00.000Z"}
    fetched = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert await fetched.json() == changed


@pytest.mark.parametrize(
    "field", ["displayName", "projectName", "hostname", "enable", "enableBug", "color", "states"]
)
async def test_patch_refuses_null(client, factory: Factory, field: str) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    response = await patch(client, ada, project["_id"], {field: None})
    assert response.status == 400
    assert (await response.json())["error"].startswith(f"{field}: ")
    fetched = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert await fetched.json() == project


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"source": "Microsoft.Vsts"}, "source: a project cannot change its source"),
        ({"sourceId": "OTHER"}, "sourceId: a project cannot change its sourceId"),
        ({"states": []}, "states: a project keeps at least one state"),
    ],
)
async def test_patch_refuses_fixed_identity_and_empty_catalogue(
    client, factory: Factory, body: dict[str, Any], error: str
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    response = await patch(client, ada, project["_id"], {"displayName": "Changed", **body})
    assert response.status == 400
    assert await response.json() == {"error": error}
    fetched = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert await fetched.json() == project


async def test_patch_accepts_the_unchanged_source_and_source_id(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    body = {"source": "Jira", "sourceId": "SB", "displayName": "Same source"}
    response = await patch(client, ada, project["_id"], body)
    assert response.status == 200
    assert (await response.json())["displayName"] == "Same source"


async def test_planner_states_cannot_change(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner())
    response = await patch(client, ada, project["_id"], {"states": JIRA_STATES})
    assert response.status == 400
    assert await response.json() == {"error": "states: Planner's states are fixed"}


async def test_a_planner_project_takes_no_bugs(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner(enableBug=False))
    response = await patch(client, ada, project["_id"], {"enableBug": True, "color": "#00ff00"})
    assert response.status == 400
    said = "a Planner plan holds tasks only: a Planner project's enableBug is false"
    assert await response.json() == {"error": f"enableBug: {said}"}
    fetched = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert await fetched.json() == project  # nothing changed
    response = await patch(client, ada, project["_id"], {"enableBug": False})
    assert response.status == 200, await response.text()


@pytest.mark.parametrize(
    "body",
    [
        {"hostname": "x.example"},
        {"enable": False},
        {"enableBug": False},
        {"states": JIRA_STATES},
        {"token": "t"},
        {"password": "p"},
        {"source": "Jira"},
        {"sourceId": "elsewhere"},
    ],
)
async def test_the_native_projects_fixed_fields_are_refused(
    client, factory: Factory, body: dict[str, Any]
) -> None:
    ada = await factory.member()
    native = await native_project(client, ada)
    response = await patch(client, ada, native["_id"], body)
    assert response.status == 400
    assert await native_project(client, ada) == native


async def test_the_native_project_can_be_renamed_and_coloured(client, factory: Factory) -> None:
    ada = await factory.member()
    native = await native_project(client, ada)
    body = {"displayName": "Our bugs", "projectName": "ours", "color": "#abcdef"}
    response = await patch(client, ada, native["_id"], body)
    assert response.status == 200
    assert await native_project(client, ada) == {**native, **body}


async def test_renaming_a_project_shows_in_item_lists_and_details(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    listed = await (await client.get("/odata/bugs", headers=ada.in_channel())).json()
    assert listed["value"][0]["projectId"]["displayName"] == "Sprint board"
    body = {
        "displayName": "Renamed",
        "projectName": "RN",
        "hostname": "n.example",
        "enableBug": False,
    }
    assert (await patch(client, ada, project["_id"], body)).status == 200
    embedded = {
        "_id": project["_id"],
        "displayName": "Renamed",
        "projectName": "RN",
        "hostname": "n.example",
        "enableBug": False,
        "sourceId": "SB",
    }
    listed = await (await client.get("/odata/bugs", headers=ada.in_channel())).json()
    assert listed["value"][0]["projectId"] == embedded
    assert (await details(client, ada, bug["_id"]))["projectId"] == embedded


async def test_a_new_catalogue_keeps_renames_drops_and_adds_mappings(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    review = await client.post(
        "/odata/status",
        json={"name": "Review", "type": "Bug", "category": "Active"},
        headers=ada.in_channel(),
    )
    # The team maps Jira's "In Progress" (3) of bugs to their own Review status.
    (in_progress,) = [
        m
        for m in await mappings_of(client, ada, project["_id"], entityType="Bug")
        if m["sourceId"] == "3"
    ]
    remapped = await client.patch(
        f"/odata/_fieldMappings({in_progress['_id']})",
        json={"fieldId": (await review.json())["_id"]},
        headers=ada.in_channel(),
    )
    assert remapped.status == 204
    states = [
        {"id": "3", "name": "Doing", "category": "Active"},  # kept, renamed
        {"id": "10001", "name": "Done", "category": "Done"},  # kept
        {"id": "4", "name": "Backlog", "category": "New"},  # added; "1" To Do is removed
    ]
    response = await patch(client, ada, project["_id"], {"states": states})
    assert response.status == 200
    assert (await response.json())["states"] == states
    found = await mappings_of(client, ada, project["_id"], type="status")
    assert {(m["entityType"], m["sourceId"], m["sourceName"], m["fieldName"]) for m in found} == {
        ("Bug", "3", "Doing", "Review"),
        ("Bug", "10001", "Done", "Completed"),
        ("Bug", "4", "Backlog", "Not Started"),
        ("Task", "3", "Doing", "In Progress"),
        ("Task", "10001", "Done", "Completed"),
        ("Task", "4", "Backlog", "Not Started"),
    }
    sources = await client.get(f"/api/fields/bug/status/{project['_id']}", headers=ada.in_channel())
    assert await sources.json() == states


async def test_a_state_removed_makes_its_items_invalid_and_an_added_one_restores_them(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])  # Not Started ← To Do (1)
    native_bug = await create_item(client, ada)
    without_to_do = JIRA_STATES[1:]
    assert (await patch(client, ada, project["_id"], {"states": without_to_do})).status == 200
    shown = await details(client, ada, bug["_id"])
    assert (shown["status"], shown["sync"]["status"]) == ("Invalid", "Svc_MAPPING_NOTFOUND")
    invalid = await client.get(
        "/odata/bugs",
        params={"$filter": "status eq 'Invalid'", "$count": "true"},
        headers=ada.in_channel(),
    )
    page = await invalid.json()
    assert [b["_id"] for b in page["value"]] == [bug["_id"]]
    assert page["@odata.count"] == 1
    assert (await details(client, ada, native_bug["_id"]))["status"] == "Not Started"
    back = [{"id": "1b", "name": "Open", "category": "New"}, *without_to_do]
    assert (await patch(client, ada, project["_id"], {"states": back})).status == 200
    shown = await details(client, ada, bug["_id"])
    assert (shown["status"], shown["sync"]["status"]) == ("Not Started", None)


async def test_deleting_a_project_takes_its_mappings(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    kept = await add_project(client, ada, planner())
    response = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert response.status == 204
    gone = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert gone.status == 404
    assert await mappings_of(client, ada, project["_id"]) == []
    async with factory.work() as uow:
        left = await uow.session.scalar(
            select(func.count())
            .select_from(FieldMapping)
            .where(FieldMapping.project_id == project["_id"])
        )
    assert left == 0
    assert len(await mappings_of(client, ada, kept["_id"])) == 6
    again = await client.post("/api/projects", json=jira(), headers=ada.in_channel())
    assert again.status == 201


async def test_deleting_a_project_in_use_moves_its_items_to_the_native_project(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    task = await create_item(client, ada, of="task", projectId=project["_id"])
    response = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert response.status == 204
    native = await native_project(client, ada)
    for item in (bug, task):
        shown = await details(client, ada, item["_id"], of="task" if item is task else "bug")
        assert shown["projectId"]["_id"] == native["_id"]
        assert (shown["source"], shown["sourceId"]) == ("Svc.Native", item["_id"])
        assert shown["status"] == item["status"]
    assert await mappings_of(client, ada, project["_id"]) == []


async def test_the_native_project_cannot_be_deleted(client, factory: Factory) -> None:
    ada = await factory.member()
    native = await native_project(client, ada)
    response = await client.delete(f"/api/projects/{native['_id']}", headers=ada.in_channel())
    assert response.status == 400
    assert await response.json() == {"error": "The channel's native project cannot be deleted."}
    assert await native_project(client, ada) == native


async def test_an_item_moved_away_frees_the_project(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, jira())
    bug = await create_item(client, ada, projectId=project["_id"])
    native = await native_project(client, ada)
    moved = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"projectId": native["_id"]}, headers=ada.in_channel()
    )
    assert moved.status == 204
    shown = await details(client, ada, bug["_id"])
    assert (shown["source"], shown["projectId"]["_id"]) == ("Svc.Native", native["_id"])
    response = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert response.status == 204
    assert pairs(await mappings_of(client, ada, project["_id"])) == set()

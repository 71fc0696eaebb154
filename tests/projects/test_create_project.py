"""Configuring a project: the three external kinds, what each requires, and every refusal."""

from typing import Any

import pytest
from sqlalchemy import func, select

from bot.db.tables import FieldMapping, Project
from tests.factories import Factory
from tests.projects.bodies import ADO_STATES, JIRA_STATES, SYNC_OFF, azure_devops, jira, planner

STAMP = "2026-11-21T09:30:00.000Z"


async def stored_counts(factory: Factory) -> tuple[int, int]:
    """Projects and mappings in the database: what a refusal must leave alone."""
    async with factory.work() as uow:
        projects = await uow.session.scalar(select(func.count()).select_from(Project))
        mappings = await uow.session.scalar(select(func.count()).select_from(FieldMapping))
        return projects or 0, mappings or 0


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            jira(),
            {"source": "Jira", "sourceId": "SB", "hostname": "contoso.atlassian.net"},
            id="jira",
        ),
        pytest.param(
            azure_devops(),
            {
                "source": "Microsoft.Vsts",
                "sourceId": "6ce954b1-ce1f-45d1-b94d-e6bf2464ba2c",
                "hostname": "dev.azure.com/fabrikam",
            },
            id="azure-devops",
        ),
        pytest.param(
            planner(),
            # A plan holds tasks only (sync.md): its project takes no bugs.
            {
                "source": "Microsoft.Planner",
                "sourceId": "xqQg5FS2LkCp935s-FIFm2QAFkHM",
                "enableBug": False,
            },
            id="planner",
        ),
    ],
)
async def test_create_answers_201_with_the_configured_project(
    client, factory: Factory, body: dict[str, Any], expected: dict[str, Any]
) -> None:
    ada = await factory.member()
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 201, await response.text()
    project = await response.json()
    assert project == {
        "_id": project["_id"],
        "displayName": body["displayName"],
        "projectName": body["displayName"],  # defaults to the display name
        "source": expected["source"],
        "sourceId": expected["sourceId"],
        "hostname": expected.get("hostname", ""),
        "enable": True,
        "enableBug": expected.get("enableBug", True),
        "color": "",
        "states": body.get("states", []),
        "hasCredentials": False,
        "credentials": [],
        "sync": SYNC_OFF,
        "createdAt": STAMP,
        "updatedAt": STAMP,
    }
    fetched = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert await fetched.json() == project


async def test_create_keeps_every_optional_field_given(client, factory: Factory) -> None:
    ada = await factory.member()
    body = jira(projectName="SB board", color="#00ff00", enable=False, enableBug=False)
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 201
    project = await response.json()
    assert project["projectName"] == "SB board"
    assert project["color"] == "#00ff00"
    assert (project["enable"], project["enableBug"]) == (False, False)


async def test_the_same_source_project_twice_answers_409(client, factory: Factory) -> None:
    ada = await factory.member()
    first = await client.post("/api/projects", json=jira(), headers=ada.in_channel())
    assert first.status == 201
    before = await stored_counts(factory)
    again = await client.post(
        "/api/projects", json=jira(displayName="Another name"), headers=ada.in_channel()
    )
    assert again.status == 409
    assert await again.json() == {"error": "Jira project 'SB' is already configured here."}
    assert await stored_counts(factory) == before
    # The same sourceId in another kind of source is another project.
    other_kind = await client.post(
        "/api/projects", json=azure_devops(sourceId="SB"), headers=ada.in_channel()
    )
    assert other_kind.status == 201


@pytest.mark.parametrize(
    ("body", "error"),
    [
        pytest.param(
            {**jira(), "source": "Svc.Native"},
            "source: each channel has one Svc.Native project, made with the channel",
            id="native",
        ),
        pytest.param(
            planner(states=JIRA_STATES),
            "states: Planner's states are fixed; send none",
            id="planner-with-states",
        ),
        pytest.param(
            planner(enableBug=True),
            "enableBug: a Planner plan holds tasks only: a Planner project's enableBug is false",
            id="planner-with-bugs",
        ),
        pytest.param(
            jira(hostname=None), "hostname: required for Jira projects", id="jira-no-hostname"
        ),
        pytest.param(
            {k: v for k, v in azure_devops().items() if k != "hostname"},
            "hostname: required for Microsoft.Vsts projects",
            id="ado-no-hostname",
        ),
        pytest.param(
            jira(states=None),
            "states: required for Jira projects: their state catalogue",
            id="jira-no-states",
        ),
        pytest.param(
            azure_devops(states=[]),
            "states: required for Microsoft.Vsts projects: their state catalogue",
            id="ado-empty-states",
        ),
        pytest.param(
            jira(states=[*JIRA_STATES, {"id": "1", "name": "Again", "category": "New"}]),
            "states: Value error, each state id may appear once",
            id="duplicate-state-ids",
        ),
    ],
)
async def test_refused_bodies_name_the_field_and_change_nothing(
    client, factory: Factory, body: dict[str, Any], error: str
) -> None:
    ada = await factory.member()
    before = await stored_counts(factory)
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert await response.json() == {"error": error}
    assert await stored_counts(factory) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({k: v for k, v in jira().items() if k != "displayName"}, "displayName"),
        pytest.param({k: v for k, v in jira().items() if k != "source"}, "source"),
        pytest.param({k: v for k, v in jira().items() if k != "sourceId"}, "sourceId"),
        pytest.param(jira(displayName=""), "displayName"),
        pytest.param(jira(sourceId="  "), "sourceId"),
        pytest.param(jira(source="GitHub"), "source"),
        pytest.param(
            jira(states=[{"id": "1", "name": "To Do", "category": "Waiting"}]),
            "states.0.category",
            id="bad-category",
        ),
        pytest.param(jira(states=[{"id": "1", "category": "New"}]), "states.0.name"),
        pytest.param(jira(color="green"), "color"),
        pytest.param(jira(token=""), "token"),
        pytest.param(jira(enable="maybe"), "enable"),
    ],
)
async def test_malformed_fields_answer_400_naming_them(
    client, factory: Factory, body: dict[str, Any], field: str
) -> None:
    ada = await factory.member()
    before = await stored_counts(factory)
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 400
    assert (await response.json())["error"].startswith(f"{field}: ")
    assert await stored_counts(factory) == before


async def test_server_owned_fields_in_the_body_are_ignored(client, factory: Factory) -> None:
    ada = await factory.member()
    body = jira(_id="0123456789abcdef01234567", hasCredentials=True, createdAt="2020-01-01")
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == 201
    project = await response.json()
    assert project["_id"] != "0123456789abcdef01234567"
    assert project["hasCredentials"] is False
    assert project["createdAt"] == STAMP


async def test_states_are_returned_as_given_in_their_order(client, factory: Factory) -> None:
    ada = await factory.member()
    states = list(reversed(ADO_STATES))
    response = await client.post(
        "/api/projects", json=azure_devops(states=states), headers=ada.in_channel()
    )
    assert (await response.json())["states"] == states

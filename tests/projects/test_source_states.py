"""The states of a project's source (docs/api.md, Projects), per kind of source."""

import pytest

from tests.factories import Factory
from tests.projects.bodies import (
    ADO_STATES,
    CHANNEL_B,
    CHANNEL_OF_TEAM_B,
    JIRA_STATES,
    PLANNER_STATES,
    TEAM_B,
    UNKNOWN_ID,
    add_project,
    azure_devops,
    jira,
    native_project,
    planner,
)

MISSING_CONTEXT = {
    "code": "Must run inside Microsoft Teams.",
    "message": "Must run inside Microsoft Teams.",
}


@pytest.mark.parametrize("kind", ["task", "bug"])
async def test_planner_answers_its_documented_shape(client, factory: Factory, kind: str) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner())
    response = await client.get(
        f"/api/fields/{kind}/status/{project['_id']}", headers=ada.in_channel()
    )
    assert response.status == 200
    assert await response.json() == PLANNER_STATES


@pytest.mark.parametrize("kind", ["task", "bug"])
@pytest.mark.parametrize(("body", "states"), [(jira(), JIRA_STATES), (azure_devops(), ADO_STATES)])
async def test_jira_and_azure_devops_answer_their_catalogue(
    client, factory: Factory, kind: str, body: dict, states: list
) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, body)
    response = await client.get(
        f"/api/fields/{kind}/status/{project['_id']}", headers=ada.in_channel()
    )
    assert response.status == 200
    assert await response.json() == states


@pytest.mark.parametrize(("kind", "label"), [("task", "Task"), ("bug", "Bug")])
async def test_native_answers_the_channels_statuses_of_that_kind_in_order(
    client, factory: Factory, kind: str, label: str
) -> None:
    ada = await factory.member()
    h = ada.in_channel()
    first = await client.post(
        "/odata/status",
        json={"name": "Triage", "type": label, "category": "New", "order": 0},
        headers=h,
    )
    other_kind = "Bug" if label == "Task" else "Task"
    await client.post(
        "/odata/status",
        json={"name": "Elsewhere", "type": other_kind, "category": "New"},
        headers=h,
    )
    statuses = await (
        await client.get("/odata/status", params={"$filter": f"type eq '{label}'"}, headers=h)
    ).json()
    ids = {s["name"]: s["_id"] for s in statuses["value"]}
    native = await native_project(client, ada)
    response = await client.get(f"/api/fields/{kind}/status/{native['_id']}", headers=h)
    assert response.status == 200
    assert await response.json() == [
        {"id": (await first.json())["_id"], "name": "Triage", "category": "New"},
        {"id": ids["Not Started"], "name": "Not Started", "category": "New"},
        {"id": ids["In Progress"], "name": "In Progress", "category": "Active"},
        {"id": ids["Completed"], "name": "Completed", "category": "Done"},
    ]


async def test_unknown_malformed_and_foreign_projects_are_not_found(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    of_b = await client.post(
        "/api/projects", json=jira(), headers=ada.in_channel(channel=CHANNEL_B)
    )
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_OF_TEAM_B, team_id=TEAM_B, name="B's")
    bob = await factory.member("Bob", team_id=TEAM_B)
    bobs = await client.post(
        "/api/projects", json=planner(), headers=bob.in_channel(TEAM_B, CHANNEL_OF_TEAM_B)
    )
    bobs_native = await client.get(
        "/api/projects", headers=bob.in_channel(TEAM_B, CHANNEL_OF_TEAM_B)
    )
    foreign = [
        (await of_b.json())["_id"],
        (await bobs.json())["_id"],
        *[p["_id"] for p in (await bobs_native.json())["value"]],
    ]
    for project_id in [UNKNOWN_ID, "nope", *foreign]:
        response = await client.get(
            f"/api/fields/bug/status/{project_id}", headers=ada.in_channel()
        )
        assert response.status == 404
        assert await response.json() == {"error": f"Project '{project_id}' not found."}


async def test_without_a_session_it_answers_401(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner())
    context = {k: v for k, v in ada.in_channel().items() if k != "Cookie"}
    for headers in (context, {**context, "Cookie": "graphNodeCookie=not-a-session"}):
        response = await client.get(f"/api/fields/task/status/{project['_id']}", headers=headers)
        assert response.status == 401
        assert set(await response.json()) == {"error"}


async def test_without_the_channel_headers_it_answers_400(client, factory: Factory) -> None:
    ada = await factory.member()
    project = await add_project(client, ada, planner())
    for dropped in ("x-svc-teamid", "x-svc-channelId"):
        headers = {k: v for k, v in ada.in_channel().items() if k != dropped}
        response = await client.get(f"/api/fields/task/status/{project['_id']}", headers=headers)
        assert response.status == 400
        assert await response.json() == MISSING_CONTEXT

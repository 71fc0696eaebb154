"""Reading projects: the OData list (the native project first), one project, and the 404s."""

from datetime import timedelta

import pytest

from bot.clock import FrozenClock
from tests.factories import CHANNEL, Factory
from tests.projects.bodies import (
    CHANNEL_B,
    CHANNEL_OF_TEAM_B,
    SYNC_OFF,
    TEAM_B,
    UNKNOWN_ID,
    add_project,
    azure_devops,
    jira,
    planner,
)


async def test_every_channel_has_its_native_project(client, factory: Factory) -> None:
    ada = await factory.member()
    response = await client.get("/api/projects", headers=ada.in_channel())
    assert response.status == 200
    page = await response.json()
    assert page["@odata.context"].endswith("/odata/$metadata#projects")
    (native,) = page["value"]
    assert native == {
        "_id": native["_id"],
        "displayName": "Bugs",  # the channel's name
        "projectName": "Bugs",
        "source": "Svc.Native",
        "sourceId": CHANNEL,
        "hostname": "",
        "enable": True,
        "enableBug": True,
        "color": "",
        "states": [],
        "hasCredentials": False,
        "credentials": [],
        "sync": SYNC_OFF,
        "createdAt": "2026-11-21T09:30:00.000Z",
        "updatedAt": "2026-11-21T09:30:00.000Z",
    }


async def test_the_list_starts_with_the_native_project(
    client, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    for body in (jira(), planner(), azure_devops()):
        clock.advance(timedelta(minutes=1))
        await add_project(client, ada, body)
    page = await (await client.get("/api/projects", headers=ada.in_channel())).json()
    assert [p["source"] for p in page["value"]] == [
        "Svc.Native",
        "Jira",
        "Microsoft.Planner",
        "Microsoft.Vsts",
    ]


@pytest.mark.parametrize(
    ("options", "names"),
    [
        (
            {"$filter": "source ne 'Svc.Native'", "$orderby": "displayName"},
            ["Fabrikam", "Launch", "Sprint"],
        ),
        ({"$filter": "contains(hostname, 'ATLASSIAN')"}, ["Sprint"]),
        ({"$filter": "enable eq false"}, ["Fabrikam"]),
        ({"$orderby": "displayName desc", "$top": "2"}, ["Sprint", "Launch"]),
        ({"$orderby": "displayName", "$skip": "1", "$top": "1"}, ["Fabrikam"]),
        ({"$filter": "source in ('Jira', 'Microsoft.Planner')", "$orderby": "source"}, None),
    ],
)
async def test_the_list_takes_odata_options(
    client, factory: Factory, options: dict[str, str], names: list[str] | None
) -> None:
    ada = await factory.member()
    await add_project(client, ada, jira())
    await add_project(client, ada, planner(displayName="Launch"))
    await add_project(client, ada, azure_devops(displayName="Fabrikam", enable=False))
    response = await client.get(
        "/api/projects", params={**options, "$count": "true"}, headers=ada.in_channel()
    )
    assert response.status == 200, await response.text()
    page = await response.json()
    if names is None:
        assert [p["source"] for p in page["value"]] == ["Jira", "Microsoft.Planner"]
        assert page["@odata.count"] == 2
    else:
        assert [p["displayName"].split()[0] for p in page["value"]] == names


async def test_select_keeps_the_id_and_the_fields_named(client, factory: Factory) -> None:
    ada = await factory.member()
    await add_project(client, ada, jira(token="t"))
    page = await (
        await client.get(
            "/api/projects",
            params={"$select": "displayName,hasCredentials,states", "$filter": "source eq 'Jira'"},
            headers=ada.in_channel(),
        )
    ).json()
    (project,) = page["value"]
    assert set(project) == {"_id", "displayName", "hasCredentials", "states"}
    assert project["hasCredentials"] is True


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"$filter": "password eq 'x'"}, "Invalid $filter"),
        ({"$filter": "states eq 'x'"}, "Invalid $filter"),
        ({"$orderby": "token"}, "$orderby"),
        ({"$select": "token"}, "$select"),
    ],
)
async def test_secrets_and_unknown_fields_cannot_be_queried(
    client, factory: Factory, options: dict[str, str], error: str
) -> None:
    ada = await factory.member()
    response = await client.get("/api/projects", params=options, headers=ada.in_channel())
    assert response.status == 400
    assert error in (await response.json())["error"]


async def test_each_channel_lists_its_own_projects(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    await add_project(client, ada, jira())
    page = await (
        await client.get("/api/projects", headers=ada.in_channel(channel=CHANNEL_B))
    ).json()
    assert [(p["displayName"], p["source"]) for p in page["value"]] == [("Ops", "Svc.Native")]


async def test_a_project_of_another_channel_or_team_is_not_found(client, factory: Factory) -> None:
    ada = await factory.member()
    await factory.channel(CHANNEL_B, name="Ops")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_OF_TEAM_B, team_id=TEAM_B, name="B's")
    bob = await factory.member("Bob", team_id=TEAM_B)
    bobs_headers = bob.in_channel(TEAM_B, CHANNEL_OF_TEAM_B)
    created_in_b = await client.post("/api/projects", json=jira(), headers=bobs_headers)
    assert created_in_b.status == 201
    in_b = await created_in_b.json()
    of_channel_b = await client.post(
        "/api/projects", json=planner(), headers=ada.in_channel(channel=CHANNEL_B)
    )
    assert of_channel_b.status == 201
    for project_id in (in_b["_id"], (await of_channel_b.json())["_id"]):
        for method in ("GET", "PATCH", "DELETE"):
            response = await client.request(
                method,
                f"/api/projects/{project_id}",
                json={"displayName": "Taken"} if method == "PATCH" else None,
                headers=ada.in_channel(),
            )
            assert response.status == 404, (method, project_id)
            assert await response.json() == {"error": f"Project '{project_id}' not found."}
    unchanged = await client.get(f"/api/projects/{in_b['_id']}", headers=bobs_headers)
    assert (await unchanged.json())["displayName"] == "Sprint board"


@pytest.mark.parametrize("project_id", [UNKNOWN_ID, "not-an-id", "0123456789ABCDEF01234567"])
async def test_unknown_or_malformed_ids_are_not_found(
    client, factory: Factory, project_id: str
) -> None:
    ada = await factory.member()
    response = await client.get(f"/api/projects/{project_id}", headers=ada.in_channel())
    assert response.status == 404
    assert await response.json() == {"error": f"Project '{project_id}' not found."}

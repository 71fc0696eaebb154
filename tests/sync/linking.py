"""Helpers the engine's tests share: an app whose sources may be on loopback, linking a project
to the local Azure DevOps, and running the app's jobs until none is due."""

import base64
from typing import Any

from aiohttp.test_utils import TestClient

from bot.keys import WORKER
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Member

ADO_STATES_WITHOUT_RESOLVED = [
    {"id": "New", "name": "New", "category": "New"},
    {"id": "Active", "name": "Active", "category": "Active"},
    {"id": "Closed", "name": "Closed", "category": "Done"},
    {"id": "Removed", "name": "Removed", "category": "Done"},
]


def ado_body(standin: AzureDevOpsStandin, **overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Fabrikam",
        "source": "Microsoft.Vsts",
        "sourceId": standin.project,
        "hostname": standin.org_url,
        "token": standin.token,
        "sync": {"enabled": True},
        **overrides,
    }


async def link(
    client: TestClient, member: Member, standin: AzureDevOpsStandin, **overrides: Any
) -> dict[str, Any]:
    """A project linked to the local Azure DevOps through the API, its first import run."""
    return await link_body(client, member, ado_body(standin, **overrides))


async def link_body(client: TestClient, member: Member, body: dict[str, Any]) -> dict[str, Any]:
    """A project made from `body` through the API, its first import run."""
    response = await client.post("/api/projects", json=body, headers=member.in_channel())
    assert response.status == 201, await response.text()
    project: dict[str, Any] = await response.json()
    await run_jobs(client)
    return project


def hook_basic(user: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{secret}".encode()).decode()


async def run_jobs(client: TestClient) -> None:
    """Every job due now, and what they queue, until none is left due."""
    worker = client.app[WORKER]
    for _ in range(100):
        if await worker.run_once() == 0:
            return
    raise AssertionError("jobs kept coming for 100 turns")


async def bugs(client: TestClient, member: Member, **params: str) -> list[dict[str, Any]]:
    return await items(client, member, "bugs", **params)


async def items(
    client: TestClient, member: Member, plural: str, **params: str
) -> list[dict[str, Any]]:
    response = await client.get(f"/odata/{plural}", params=params, headers=member.in_channel())
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


async def sync_status(client: TestClient, member: Member, project_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/projects/{project_id}/sync", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return dict(await response.json())

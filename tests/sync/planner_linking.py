"""Helpers the Planner engine tests share: the local Planner on the test clock, an app whose
ENTRA_AUTHORITY_URL is that Planner's token endpoint, and linking a project to it."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.settings import Settings
from bot.sync.standins.planner import PlannerStandin
from tests.factories import Member
from tests.sync.linking import run_jobs
from tests.vendor_apis.planner_fixtures import MakePlanner


@pytest.fixture
async def planner(make_planner: MakePlanner, clock: FrozenClock) -> PlannerStandin:
    return await make_planner(clock=clock, page_size=3)  # type: ignore[no-any-return]


@pytest.fixture
def settings(db: str, make_settings, planner: PlannerStandin) -> Settings:  # noqa: ANN001
    return make_settings(  # type: ignore[no-any-return]
        db,
        SYNC_ALLOWED_HOSTS="127.0.0.1",
        JOBS_POLL_SECONDS=0,
        PUBLIC_URL="http://127.0.0.1:9",
        ENTRA_AUTHORITY_URL=planner.authority_url,
    )


def planner_body(planner: PlannerStandin, **overrides: Any) -> dict[str, Any]:
    return {
        "displayName": "Fabrikam plan",
        "source": "Microsoft.Planner",
        "sourceId": planner.plan_id,
        "hostname": planner.graph_url,
        "tenantId": planner.tenant_id,
        "clientId": planner.client_id,
        "clientSecret": planner.client_secret,
        "sync": {"enabled": True},
        **overrides,
    }


async def link_planner(
    client: TestClient, member: Member, planner: PlannerStandin, **overrides: Any
) -> dict[str, Any]:
    """A plan linked through the API, its first import run."""
    response = await client.post(
        "/api/projects", json=planner_body(planner, **overrides), headers=member.in_channel()
    )
    assert response.status == 201, await response.text()
    project: dict[str, Any] = await response.json()
    await run_jobs(client)
    return project


async def tasks(client: TestClient, member: Member) -> list[dict[str, Any]]:
    response = await client.get("/odata/tasks", headers=member.in_channel())
    assert response.status == 200, await response.text()
    return sorted((await response.json())["value"], key=lambda task: task["name"])


async def edit(client: TestClient, member: Member, task_id: str, **changes: Any) -> None:
    response = await client.patch(
        f"/odata/tasks({task_id})", json=changes, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()

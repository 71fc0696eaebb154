"""Linking a Planner plan: what saving checks at Planner (and stores nothing when it fails), the
fixed states and priority bands it starts with, and tasks made here going to Planner once."""

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from bot.clock import FrozenClock
from bot.sync.standins.planner import PlannerStandin
from bot.sync.standins.planner.__main__ import serve
from tests.factories import Factory, Member
from tests.sync.linking import run_jobs
from tests.sync.planner_linking import link_planner, planner, planner_body, settings, tasks
from tests.vendor_apis.planner_conformance import problems_of
from tests.vendor_apis.planner_fixtures import make_planner

__all__ = ["make_planner", "planner", "settings"]


async def sources(client, member: Member) -> list[str]:  # noqa: ANN001
    response = await client.get("/api/projects", headers=member.in_channel())
    return [p["source"] for p in (await response.json())["value"]]


@pytest.mark.parametrize(
    ("overrides", "status", "error"),
    [
        ({"clientSecret": "wrong"}, 400, "check tenantId, clientId, clientSecret"),
        ({"tenantId": "elsewhere.example"}, 400, "check tenantId, clientId, clientSecret"),
        ({"sourceId": "no-such-plan"}, 400, "no project 'no-such-plan'"),
        ({"clientSecret": None}, 400, "clientSecret"),
        ({"hostname": "http://127.0.0.1:9/v1.0"}, 502, "could not be reached"),
    ],
)
async def test_a_link_planner_refuses_stores_nothing(
    client,
    factory: Factory,
    planner: PlannerStandin,
    overrides: dict[str, Any],
    status: int,
    error: str,
) -> None:
    ada = await factory.member()
    body = {k: v for k, v in planner_body(planner, **overrides).items() if v is not None}
    response = await client.post("/api/projects", json=body, headers=ada.in_channel())
    assert response.status == status, await response.text()
    assert error in (await response.json())["error"]
    assert await sources(client, ada) == ["Svc.Native"]


async def test_a_linked_plan_has_the_fixed_states_and_priority_bands(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member()
    project = await link_planner(client, ada, planner)
    assert project["sync"]["itemTypes"] == {"Task": "Task"}
    mappings = await client.get("/odata/_fieldMappings", headers=ada.in_channel())
    assert mappings.status == 200, await mappings.text()
    by_type: dict[str, dict[str, str]] = {}
    for mapping in (await mappings.json())["value"]:
        if mapping["entityType"] == "Task" and mapping["source"] == "Microsoft.Planner":
            by_type.setdefault(mapping["type"], {})[mapping["sourceId"]] = mapping["fieldId"]
    assert set(by_type["status"]) == {"PLSTT-NotStarted", "PLSTT-InProgress", "PLSTT-Completed"}
    bands = by_type["priority"]
    assert len(bands) == 11
    assert bands["0"] == bands["1"] != bands["2"] == bands["4"] != bands["5"] == bands["7"]
    assert bands["8"] == bands["10"] != bands["7"]


async def test_a_task_made_here_goes_to_the_querys_bucket_once_though_its_answer_was_lost(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    doing = planner.buckets[1]
    planner.create("In the other bucket")
    planner.create("Doing already", bucketId=doing)
    project = await link_planner(client, ada, planner, sync={"enabled": True, "query": doing})
    assert [t["name"] for t in await tasks(client, ada)] == ["Doing already"]
    planner.fail_next(status=500, after_change=True, path_part="/planner/tasks")
    made = await client.post(
        "/odata/tasks",
        json={"name": "Made here", "projectId": project["_id"], "body": "Details here"},
        headers=ada.in_channel(),
    )
    assert made.status == 201, await made.text()
    for _ in range(4):
        await run_jobs(client)
        clock.advance(timedelta(seconds=61))
    there = [t for t in planner.tasks() if t["title"] == "Made here"]
    assert len(there) == 1
    assert there[0]["bucketId"] == doing
    assert planner.task(there[0]["id"])["description"] == "Details here"  # type: ignore[index]
    here = {t["name"]: t for t in await tasks(client, ada)}
    assert here["Made here"]["sourceId"] == there[0]["id"]
    assert here["Made here"]["sync"]["status"] is None


async def test_the_local_planner_serves_on_its_own_for_trying_it_out() -> None:
    stop = asyncio.Event()
    ready: asyncio.Future[PlannerStandin] = asyncio.get_running_loop().create_future()
    serving = asyncio.create_task(serve(port=0, seed=3, stop=stop, ready=ready.set_result))
    try:
        standin = await asyncio.wait_for(ready, timeout=30)
        assert [t["title"] for t in standin.tasks()] == ["Task 0", "Task 1", "Task 2"]
        assert problems_of(standin.exchanges) == []
    finally:
        stop.set()
        await asyncio.wait_for(serving, timeout=30)


async def test_unlinking_a_plan_keeps_its_tasks_here_in_the_channels_own_project(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member()
    planner.seed(2, percentComplete=50)
    project = await link_planner(client, ada, planner)
    removed = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert removed.status == 204, await removed.text()
    kept = await tasks(client, ada)
    assert [(t["name"], t["source"], t["status"]) for t in kept] == [
        ("Task 0", "Svc.Native", "In Progress"),
        ("Task 1", "Svc.Native", "In Progress"),
    ]
    assert [t["title"] for t in planner.tasks()] == ["Task 0", "Task 1"]  # Planner keeps them
    assert planner.exchanges_to("DELETE") == []

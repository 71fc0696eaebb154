"""`python -m bot admin demo --with-azure-devops`: the demo app served with a local Azure DevOps
beside it, its Fabrikam project linked with sync on; items imported, and a change made there
arrives by its service hook. Only that app may reach the loopback source."""

import socket
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from bot.cli import demo_sync
from bot.cli.main import build_parser
from bot.demo import CHANNEL_ID, TEAM_ID
from bot.keys import WORKER
from bot.settings import Settings
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.cli.helpers import Cli
from tests.factories import Factory
from tests.sync.linking import ado_body
from tests.sync.standin_fixtures import azure_devops, make_azure_devops
from tests.vendor_apis.conformance import problems_of

__all__ = ["azure_devops", "make_azure_devops"]


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # The test runs the app's jobs itself.
    return make_settings(db, JOBS_POLL_SECONDS=0)  # type: ignore[no-any-return]


async def run_jobs(demo: demo_sync.DemoWithSource) -> None:
    for _ in range(100):
        if await demo.app[WORKER].run_once() == 0:
            return
    raise AssertionError("jobs kept coming for 100 turns")


async def items_of(http: aiohttp.ClientSession, kind: str) -> dict[str, dict[str, Any]]:
    async with http.get(f"/odata/{kind}s") as response:
        assert response.status == 200, await response.text()
        listed = (await response.json())["value"]
    return {item["sourceId"]: item for item in listed if item["source"] == "Microsoft.Vsts"}


async def test_the_demo_with_azure_devops_links_imports_and_carries_changes(
    settings: Settings,
) -> None:
    checked: list[str] = []

    async def watch(demo: demo_sync.DemoWithSource) -> None:
        said = demo.said()
        assert said["azureDevOps"].startswith("http://127.0.0.1:")
        assert (said["teamId"], said["channelId"]) == (TEAM_ID, CHANNEL_ID)
        headers = {
            "Cookie": f"graphNodeCookie={demo.cookie}",
            "x-svc-teamid": TEAM_ID,
            "x-svc-channelId": CHANNEL_ID,
        }
        async with aiohttp.ClientSession(demo.url, headers=headers) as http:
            async with http.get(f"/api/projects/{demo.project_id}") as response:
                project = await response.json()
            assert project["displayName"] == "Fabrikam"
            assert project["sync"]["enabled"] is True
            await run_jobs(demo)
            bugs, tasks = await items_of(http, "bug"), await items_of(http, "task")
            assert len(bugs) + len(tasks) == len(demo_sync.WORK_ITEMS)
            first = min(demo.standin.store.items)
            imported = bugs[str(first)]
            assert imported["name"] == demo_sync.WORK_ITEMS[0][0]
            assert imported["status"] == "In Progress"
            assert [person["displayName"] for person in imported["assignedTo"]] == ["Ada Lovelace"]
            assert len(demo.standin.subscriptions) == 3

            demo.standin.change(first, {"System.Title": "Renamed in Azure DevOps"})
            await demo.standin.hooks_settled()
            (called,) = demo.standin.hook_calls
            assert called.status == 202, called
            await run_jobs(demo)
            assert (await items_of(http, "bug"))[str(first)]["name"] == "Renamed in Azure DevOps"
        exchanges = demo.standin.exchanges
        assert problems_of(exchanges, [c.payload for c in demo.standin.hook_calls]) == []
        checked.append(demo.project_id)

    await demo_sync.serve(settings, source_port=0, app_port=0, until=watch)
    assert len(checked) == 1


async def test_a_second_run_links_the_same_project_to_the_new_source(settings: Settings) -> None:
    runs: list[tuple[str, int]] = []

    async def count(demo: demo_sync.DemoWithSource) -> None:
        await run_jobs(demo)
        async with aiohttp.ClientSession(
            demo.url,
            headers={
                "Cookie": f"graphNodeCookie={demo.cookie}",
                "x-svc-teamid": TEAM_ID,
                "x-svc-channelId": CHANNEL_ID,
            },
        ) as http:
            found = await items_of(http, "bug") | await items_of(http, "task")
        runs.append((demo.project_id, len(found)))
        assert len(demo.standin.subscriptions) == 3  # each run's source calls this app

    await demo_sync.serve(settings, source_port=0, app_port=0, until=count)
    await demo_sync.serve(settings, source_port=0, app_port=0, until=count)
    (first, second) = runs
    assert first == second == (first[0], len(demo_sync.WORK_ITEMS))  # nothing doubled


def test_the_command_takes_the_flag_and_a_port() -> None:
    args = build_parser().parse_args(
        ["admin", "demo", "--with-azure-devops", "--azure-devops-port", "0"]
    )
    assert (args.with_azure_devops, args.azure_devops_port) == (True, 0)
    plain = build_parser().parse_args(["admin", "demo"])
    assert (plain.with_azure_devops, plain.azure_devops_port) == (False, demo_sync.DEFAULT_PORT)


async def test_an_app_without_the_demo_refuses_the_loopback_source(
    client: TestClient, factory: Factory, azure_devops: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    response = await client.post(
        "/api/projects", json=ado_body(azure_devops), headers=ada.in_channel()
    )
    assert response.status == 400, await response.text()
    assert azure_devops.exchanges == []
    listed = await client.get("/api/projects", headers=ada.in_channel())
    assert [p["source"] for p in (await listed.json())["value"]] == ["Svc.Native"]


def test_a_port_in_use_is_said_plainly(cli: Cli, database: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        answer = cli(
            "admin", "demo", "--with-azure-devops", "--azure-devops-port", str(port), code=1
        )
    assert answer["error"].startswith(f"The local Azure DevOps cannot listen on 127.0.0.1:{port}")
    assert "--azure-devops-port 0" in answer["error"]

"""`python -m bot admin demo --with-azure-devops | --with-jira | --with-planner`: the demo app
served with a local source beside it, a project linked with sync on; items imported, and a
change made there arrives (by hook, or for Planner by the next poll). Only that app may reach
the loopback source."""

import socket
from collections.abc import Callable
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient

from bot.cli import demo_sources, demo_sync
from bot.cli.main import UsageError, build_parser
from bot.demo import CHANNEL_ID, TEAM_ID
from bot.keys import WORKER
from bot.settings import Settings
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.cli.helpers import Cli
from tests.factories import Factory
from tests.sync.linking import ado_body
from tests.sync.standin_fixtures import azure_devops, make_azure_devops
from tests.vendor_apis import conformance, openapi, planner_conformance

__all__ = ["azure_devops", "make_azure_devops"]

RENAMED = "Renamed there"


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # The test runs the app's jobs itself.
    return make_settings(db, JOBS_POLL_SECONDS=0)  # type: ignore[no-any-return]


async def run_jobs(demo: demo_sync.DemoWithSource) -> None:
    for _ in range(100):
        if await demo.app[WORKER].run_once() == 0:
            return
    raise AssertionError("jobs kept coming for 100 turns")


def signed_in(demo: demo_sync.DemoWithSource) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(
        demo.url,
        headers={
            "Cookie": f"graphNodeCookie={demo.cookie}",
            "x-svc-teamid": TEAM_ID,
            "x-svc-channelId": CHANNEL_ID,
        },
    )


async def items_of(demo: demo_sync.DemoWithSource, http: aiohttp.ClientSession) -> dict[str, Any]:
    """The project's items, bugs and tasks, by their id at the source."""
    found = {}
    for kind in ("bugs", "tasks"):
        async with http.get(f"/odata/{kind}") as response:
            assert response.status == 200, await response.text()
            listed = (await response.json())["value"]
        found |= {i["sourceId"]: i for i in listed if i["source"] == demo.source.kind}
    return found


class Seen:
    """What a test needs of each source besides the demo: its first item's id, a rename there,
    the change's way in, and the description its exchanges must keep to."""

    def __init__(self, demo: demo_sync.DemoWithSource) -> None:
        self.demo, self.standin = demo, demo.standin

    def first(self) -> str:
        match self.demo.source:
            case demo_sources.AzureDevOpsDemo():
                return str(min(self.standin.store.items))
            case demo_sources.JiraDemo():
                return str(self.standin.issues[0].key)
        return str(next(iter(self.standin.store.tasks)))

    def rename(self) -> None:
        match self.demo.source:
            case demo_sources.AzureDevOpsDemo():
                self.standin.change(int(self.first()), {"System.Title": RENAMED})
            case demo_sources.JiraDemo():
                self.standin.change(self.first(), summary=RENAMED)
            case _:
                self.standin.change(self.first(), title=RENAMED)

    async def arrived(self, http: aiohttp.ClientSession) -> None:
        if isinstance(self.demo.source, demo_sources.PlannerDemo):  # no hooks: the next poll
            async with http.post(f"/api/projects/{self.demo.project_id}/sync") as started:
                assert started.status == 202, await started.text()
        else:
            await self.standin.hooks_settled()
            (called,) = self.standin.hook_calls
            assert called.status == 202, called
        await run_jobs(self.demo)

    def problems(self) -> list[str]:
        exchanges = self.standin.exchanges
        match self.demo.source:
            case demo_sources.AzureDevOpsDemo():
                return conformance.problems_of(
                    exchanges, [c.payload for c in self.standin.hook_calls]
                )
            case demo_sources.JiraDemo():
                return openapi.problems_of(exchanges)
        return planner_conformance.problems_of(exchanges)


SOURCES = list(demo_sources.SOURCES.values())


@pytest.mark.parametrize("source", SOURCES, ids=list(demo_sources.SOURCES))
async def test_the_demo_with_a_source_links_imports_and_carries_changes(
    settings: Settings, source: Callable[[], demo_sync.DemoSource[Any]]
) -> None:
    checked: list[str] = []

    async def watch(demo: demo_sync.DemoWithSource) -> None:
        said, seen = demo.said(), Seen(demo)
        assert (said["teamId"], said["channelId"]) == (TEAM_ID, CHANNEL_ID)
        assert "curl" in said["changeThere"]
        assert f"/odata/{demo.source.listed}" in said["watch"]
        async with signed_in(demo) as http:
            async with http.get(f"/api/projects/{demo.project_id}") as response:
                project = await response.json()
            assert project["displayName"] == demo.source.display_name
            assert project["sync"]["enabled"] is True
            await run_jobs(demo)
            found = await items_of(demo, http)
            assert len(found) == len(demo_sources.ITEMS)
            imported = found[seen.first()]
            assert imported["name"] == demo_sources.ITEMS[0][0]
            assert imported["status"] == "In Progress"
            assert [person["displayName"] for person in imported["assignedTo"]] == ["Ada Lovelace"]
            assert "1. Add 51 items" in imported["body"]

            seen.rename()
            await seen.arrived(http)
            assert (await items_of(demo, http))[seen.first()]["name"] == RENAMED
        assert seen.problems() == []
        checked.append(demo.project_id)

    await demo_sync.serve(settings, source(), source_port=0, app_port=0, until=watch)
    assert len(checked) == 1


@pytest.mark.parametrize("source", SOURCES, ids=list(demo_sources.SOURCES))
async def test_a_second_run_links_the_same_project_to_the_new_source(
    settings: Settings, source: Callable[[], demo_sync.DemoSource[Any]]
) -> None:
    runs: list[tuple[str, list[str]]] = []

    async def count(demo: demo_sync.DemoWithSource) -> None:
        await run_jobs(demo)
        async with signed_in(demo) as http:
            names = sorted(item["name"] for item in (await items_of(demo, http)).values())
        runs.append((demo.project_id, names))
        if isinstance(demo.standin, AzureDevOpsStandin):
            assert len(demo.standin.subscriptions) == 3  # each run's source calls this app
        else:
            assert len(getattr(demo.standin, "webhooks", [None])) == 1

    await demo_sync.serve(settings, source(), source_port=0, app_port=0, until=count)
    await demo_sync.serve(settings, source(), source_port=0, app_port=0, until=count)
    (first, second) = runs
    assert first == second == (first[0], sorted(item[0] for item in demo_sources.ITEMS))


def test_the_command_takes_one_source_and_its_port() -> None:
    for option, source in demo_sources.SOURCES.items():
        args = build_parser().parse_args(
            ["admin", "demo", f"--with-{option}", f"--{option}-port", "0"]
        )
        flag = option.replace("-", "_")
        assert (getattr(args, f"with_{flag}"), getattr(args, f"{flag}_port")) == (True, 0)
        plain = build_parser().parse_args(["admin", "demo"])
        assert (getattr(plain, f"with_{flag}"), getattr(plain, f"{flag}_port")) == (
            False,
            source.default_port,
        )
    with pytest.raises(UsageError, match="not allowed"):
        build_parser().parse_args(["admin", "demo", "--with-jira", "--with-planner"])


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


@pytest.mark.parametrize(("option", "name"), [("azure-devops", "Azure DevOps"), ("jira", "Jira")])
def test_a_port_in_use_is_said_plainly(cli: Cli, database: str, option: str, name: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        answer = cli("admin", "demo", f"--with-{option}", f"--{option}-port", str(port), code=1)
    assert answer["error"].startswith(f"The local {name} cannot listen on 127.0.0.1:{port}")
    assert f"--{option}-port 0" in answer["error"]

"""Two app processes on one PostgreSQL (SQLite serves one process by design): the import happens
once, each change made here is sent once, and a project is polled by one of them at a time."""

import asyncio
from collections import Counter
from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import WORKER
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import ado_body, hook_basic, run_jobs, sync_status
from tests.sync.test_sync_resume import ids_read, items_of

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

WORK_ITEMS = 210  # two pages


async def both(one: TestClient, other: TestClient) -> None:
    """Both processes run their jobs at once, one job a claim, until none is due."""
    for client in (one, other):
        client.app[WORKER].batch = 1  # spread the jobs between them
    await asyncio.gather(run_jobs(one), run_jobs(other))


def pulls(standin: AzureDevOpsStandin) -> int:
    """The WIQL queries of changes since a time (a poll's pull; the deletions' has none)."""
    return sum(
        "System.ChangedDate] >" in x.request_body["query"]
        for x in standin.exchanges_to("POST", "/wiql")
    )


async def test_two_processes_import_once_send_each_change_once_and_poll_one_at_a_time(
    client,
    second_app,  # noqa: ANN001
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    other = await second_app()
    ada = await factory.member()
    seeded = standin.seed(WORK_ITEMS)
    linked = await client.post("/api/projects", json=ado_body(standin), headers=ada.in_channel())
    assert linked.status == 201, await linked.text()
    project = await linked.json()
    pid = project["_id"]
    again = await other.post(f"/api/projects/{pid}/sync", headers=ada.in_channel())
    assert again.status == 202  # "sync now" while the import waits: a second start
    await both(client, other)
    items = await items_of(other, ada)
    assert sorted(int(item["sourceId"]) for item in items) == sorted(seeded)
    assert max(Counter(ids_read(standin)).values()) == 1  # each work item read once
    status = await sync_status(client, ada, pid)
    assert (status["state"], status["counts"]["imported"]) == ("running", WORK_ITEMS)

    # Changes made through either process, a poll due and a hook told to both: each change
    # goes out once, and one process polls.
    clock.advance(timedelta(seconds=61))
    changed = items[:10]
    for n, item in enumerate(changed):
        app = (client, other)[n % 2]
        patched = await app.patch(
            f"/odata/{item['kind']}({item['_id']})",
            json={"name": f"Changed {n}"},
            headers=ada.in_channel(),
        )
        assert patched.status == 204, await patched.text()
    polled = pulls(standin)
    hook = {"Authorization": hook_basic("tracker", project["hookSecret"])}
    told = await asyncio.gather(
        *(app.post(f"/api/sync/hooks/{pid}", headers=hook) for app in (client, other))
    )
    assert [response.status for response in told] == [202, 202]
    await both(client, other)
    patches = standin.exchanges_to("PATCH")
    assert sorted(x.path.rsplit("/", 1)[1] for x in patches) == sorted(
        item["sourceId"] for item in changed
    )
    assert {x.status for x in patches} == {200}
    assert pulls(standin) == polled + 1
    for n, item in enumerate(changed):
        there = standin.work_item(int(item["sourceId"]))
        assert there is not None and there["fields"]["System.Title"] == f"Changed {n}"
    assert (await sync_status(other, ada, pid))["pending"] == 0

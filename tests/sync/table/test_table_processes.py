"""The engine's test table, two app processes on one PostgreSQL (SQLite serves one process by
design), for every source (tests/sync/table): the import happens once, even when the second is
asked to sync meanwhile, and each change made here, through either, is sent once."""

import pytest
from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from tests.factories import Factory
from tests.sync.linking import items, sync_status
from tests.sync.table.rig import SourceRig
from tests.sync.table.test_table import POLL, edit
from tests.sync.test_sync_processes import both

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

ITEMS = 120  # more than one page of Jira's search and of Planner's task list
CHANGED = 6


async def test_two_processes_import_once_and_send_each_change_once(
    client: TestClient,
    second_app,  # noqa: ANN001
    factory: Factory,
    rig: SourceRig,
    clock: FrozenClock,
) -> None:
    other = await second_app()
    ada = await factory.member()
    ids = rig.seed(ITEMS)
    linked = await client.post("/api/projects", json=rig.link_body(), headers=ada.in_channel())
    assert linked.status == 201, await linked.text()
    pid = (await linked.json())["_id"]
    again = await other.post(f"/api/projects/{pid}/sync", headers=ada.in_channel())
    assert again.status == 202  # "sync now" while the import waits: a second start
    await both(client, other)
    imported = await items(other, ada, "tasks", **{"$top": str(ITEMS), "$orderby": "name"})
    assert sorted(task["sourceId"] for task in imported) == sorted(ids)  # each once
    status = await sync_status(client, ada, pid)
    assert (status["state"], status["counts"]["imported"]) == ("running", ITEMS)
    assert rig.writes() == []

    clock.advance(POLL)
    changed = imported[:CHANGED]
    for n, task in enumerate(changed):
        await edit((client, other)[n % 2], ada, task, name=f"Changed {n}")
    await both(client, other)
    assert len(rig.writes()) == CHANGED  # each change sent once
    assert [rig.title(task["sourceId"]) for task in changed] == [
        f"Changed {n}" for n in range(CHANGED)
    ]
    assert (await sync_status(other, ada, pid))["pending"] == 0

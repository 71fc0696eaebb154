"""The engine's test table: what every source must do, run for each (tests/sync/table/rig.py)
over its local stand-in through real HTTP, on both databases."""

import json
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.fields.schemas import Category
from bot.keys import WORKER
from tests.factories import Factory, Member
from tests.sync.linking import items, link_body, run_jobs, sync_status
from tests.sync.table.rig import SourceRig, too_soon

POLL = timedelta(seconds=61)  # past the default `intervalSeconds`


async def tasks(client: TestClient, member: Member) -> list[dict[str, Any]]:
    return sorted(await items(client, member, "tasks"), key=lambda task: task["name"])


async def edit(client: TestClient, member: Member, task: dict[str, Any], **fields: Any) -> None:
    response = await client.patch(
        f"/odata/tasks({task['_id']})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def test_linking_imports_every_item_with_its_status_and_people(
    client, factory: Factory, rig: SourceRig
) -> None:
    ada = await factory.member("Ada Lovelace")
    rig.seed(3, states=[Category.ACTIVE, Category.NEW, Category.DONE], assignees=[ada])
    project = await link_body(client, ada, rig.link_body())
    imported = await tasks(client, ada)
    assert [task["name"] for task in imported] == ["Item 0", "Item 1", "Item 2"]
    assert [task["status"] for task in imported] == ["In Progress", "Not Started", "Completed"]
    assert {task["source"] for task in imported} == {rig.kind}
    assert {task["projectId"]["_id"] for task in imported} == {project["_id"]}
    assert [[a["_id"] for a in task["assignedTo"]] for task in imported] == [[ada.user.id], [], []]
    assert all(task["sync"]["status"] is None for task in imported)
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["counts"]["imported"], status["pending"]) == ("running", 3, 0)


async def test_linking_again_doubles_nothing(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    rig.seed(3)
    project = await link_body(client, ada, rig.link_body())
    again = await client.post(f"/api/projects/{project['_id']}/sync", headers=ada.in_channel())
    assert again.status == 202
    clock.advance(POLL)
    await run_jobs(client)
    assert [task["name"] for task in await tasks(client, ada)] == ["Item 0", "Item 1", "Item 2"]
    assert rig.writes() == []


async def test_changes_here_go_out_once_from_the_api_and_the_bulk_edit(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = rig.seed(2, states=[Category.NEW, Category.NEW])
    await link_body(client, ada, rig.link_body())
    first, second = await tasks(client, ada)
    clock.advance(timedelta(seconds=10))
    await edit(client, ada, first, name="Renamed here")
    pending = {task["name"]: task["sync"]["status"] for task in await tasks(client, ada)}
    assert pending == {"Renamed here": "Svc_PENDING", "Item 1": None}
    bulk = await client.post(
        "/api/bulk/task",
        json={"ids": [first["_id"], second["_id"]], "status": "Completed"},
        headers=ada.in_channel(),
    )
    assert bulk.status == 200, await bulk.text()
    await run_jobs(client)
    assert [rig.title(i) for i in ids] == ["Renamed here", "Item 1"]
    assert [rig.category(i) for i in ids] == [Category.DONE, Category.DONE]
    assert all(task["sync"]["status"] is None for task in await tasks(client, ada))
    written = len(rig.writes())
    clock.advance(POLL)
    await run_jobs(client)  # the poll reads its own changes back: nothing goes out again
    assert len(rig.writes()) == written
    assert [task["name"] for task in await tasks(client, ada)] == ["Item 1", "Renamed here"]


async def test_a_change_there_comes_in_by_polling_and_is_not_sent_back(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (item_id,) = rig.seed(1)
    project = await link_body(client, ada, rig.link_body())
    clock.advance(timedelta(minutes=1))
    rig.rename(item_id, "Renamed there")
    clock.advance(POLL)
    await run_jobs(client)
    (task,) = await tasks(client, ada)
    assert task["name"] == "Renamed there"
    assert rig.writes() == []
    assert (await sync_status(client, ada, project["_id"]))["counts"]["pulled"] == 1


async def test_the_counts_say_what_was_imported_sent_and_read(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    rig.seed(3)
    project = await link_body(client, ada, rig.link_body())
    clock.advance(timedelta(seconds=10))
    for task in await tasks(client, ada):
        await edit(client, ada, task, name=f"{task['name']} here")
    await run_jobs(client)  # three pushes, claimed together
    clock.advance(timedelta(minutes=1))
    rig.seed(2)  # two more there, read by the next poll
    clock.advance(POLL)
    await run_jobs(client)
    names = [task["name"] for task in await tasks(client, ada)]
    assert names == ["Item 0", "Item 0 here", "Item 1", "Item 1 here", "Item 2 here"]
    counts = (await sync_status(client, ada, project["_id"]))["counts"]
    assert (counts["imported"], counts["pushed"], counts["pulled"]) == (3, 3, 2)


async def test_both_sides_change_the_title_and_the_later_change_wins(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (item_id,) = rig.seed(1)
    project = await link_body(client, ada, rig.link_body())
    (task,) = await tasks(client, ada)
    clock.advance(timedelta(seconds=10))
    await edit(client, ada, task, name="Made here")
    clock.advance(timedelta(seconds=10))
    rig.rename(item_id, "Made there, later")
    await run_jobs(client)  # the push finds the item changed there: it pulls, the later wins
    (task,) = await tasks(client, ada)
    assert task["name"] == rig.title(item_id) == "Made there, later"
    assert task["sync"]["status"] is None
    status = await sync_status(client, ada, project["_id"])
    assert status["counts"]["conflicts"] == 1


async def test_deletions_travel_both_ways(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    here, there = rig.seed(2)
    await link_body(client, ada, rig.link_body())
    first, _ = await tasks(client, ada)
    deleted = await client.delete(f"/odata/tasks({first['_id']})", headers=ada.in_channel())
    assert deleted.status == 204
    await run_jobs(client)
    assert rig.title(here) is None
    rig.delete(there)
    for _ in range(3):  # the ids in scope are listed at least every second poll
        clock.advance(POLL)
        await run_jobs(client)
    assert await tasks(client, ada) == []


async def test_a_failing_source_keeps_the_change_waiting_and_sends_it_once(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (item_id,) = rig.seed(1)
    await link_body(client, ada, rig.link_body())
    (task,) = await tasks(client, ada)
    rig.fail_next(3, status=503)
    await edit(client, ada, task, name="Sent after the outage")
    for _ in range(20):
        await run_jobs(client)
        if rig.title(item_id) == "Sent after the outage":
            break
        (task,) = await tasks(client, ada)
        assert task["sync"]["status"] == "Svc_PENDING"
        clock.advance(timedelta(seconds=30))
    assert rig.title(item_id) == "Sent after the outage"
    assert len([x for x in rig.writes() if x.status < 300]) == 1  # sent once
    (task,) = await tasks(client, ada)
    assert task["sync"]["status"] is None


async def test_refused_credentials_pause_and_new_ones_resume_what_waited(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (item_id,) = rig.seed(1)
    project = await link_body(client, ada, rig.link_body())
    (task,) = await tasks(client, ada)
    rig.revoke()
    clock.advance(timedelta(seconds=10))
    await edit(client, ada, task, name="Waits")
    await run_jobs(client)
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["pending"]) == ("paused", 1)
    assert status["lastError"]["code"] == "Unauthorized"
    assert [line["level"] for line in status["log"]].count("error") == 1  # told once
    sent = len(rig.exchanges)
    clock.advance(timedelta(minutes=5))
    await run_jobs(client)
    assert len(rig.exchanges) == sent  # nothing is sent while paused
    saved = await client.patch(
        f"/api/projects/{project['_id']}", json=rig.new_credentials(), headers=ada.in_channel()
    )
    assert saved.status == 200, await saved.text()
    await run_jobs(client)
    assert rig.title(item_id) == "Waits"
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["pending"], status["lastError"]) == ("running", 0, None)


async def test_a_429_storm_is_waited_out_and_nothing_is_lost(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = rig.seed(4)
    await link_body(client, ada, rig.link_body())
    client.app[WORKER].batch = 1  # a request already on its way cannot have heeded a 429
    rig.throttle(2, window_seconds=3)
    for task in await tasks(client, ada):
        await edit(client, ada, task, name=f"Here {task['name']}")
    wanted = [f"Here Item {n}" for n in range(4)]
    for _ in range(200):
        await run_jobs(client)
        if [rig.title(i) for i in ids] == wanted:
            break
        clock.advance(timedelta(milliseconds=500))
    assert [rig.title(i) for i in ids] == wanted
    assert any(x.status == 429 for x in rig.exchanges), "the source never throttled"
    assert too_soon(rig.exchanges) == []


async def test_credentials_never_show_in_the_project_its_sync_or_its_log(
    client, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await factory.member()
    rig.seed(1)
    project = await link_body(client, ada, rig.link_body())
    rig.revoke()
    clock.advance(POLL)
    await run_jobs(client)  # a refusal, logged
    shown = []
    for path in ("/api/projects", f"/api/projects/{project['_id']}/sync"):
        response = await client.get(path, headers=ada.in_channel())
        assert response.status == 200
        shown.append(await response.text())
    shown.append(json.dumps(project))
    assert (await sync_status(client, ada, project["_id"]))["state"] == "paused"
    for secret in rig.secrets():
        assert all(secret not in text for text in shown)

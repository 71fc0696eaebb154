"""Two-way sync with Microsoft Planner: the engine through the Planner connector and the local
Planner over HTTP (its token endpoint included), on both databases."""

import asyncio
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import WORKER
from bot.sync.standins.planner import PlannerStandin
from tests.factories import Factory, Member
from tests.sync.linking import run_jobs, sync_status
from tests.sync.planner_linking import edit, link_planner, planner, settings, tasks
from tests.vendor_apis.planner_fixtures import batches, details_read, make_planner

__all__ = ["make_planner", "planner", "settings"]
INTERVAL = timedelta(seconds=60)


async def poll(client, clock: FrozenClock) -> None:  # noqa: ANN001
    clock.advance(INTERVAL)
    await run_jobs(client)


async def test_link_imports_every_task_with_progress_priority_people_and_description(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    bob = await factory.member("Bob Babbage")
    entra = {user.user.id: user.user.source_id for user in (ada, bob)}
    planner.create(
        "Started",
        percentComplete=30,
        priority=1,
        assignments={entra[ada.user.id]: {}, entra[bob.user.id]: {}, "someone-else": {}},
        dueDateTime="2026-12-24T00:00:00Z",
        description="Steps:\n- one\n- two",
    )
    planner.create("Fresh", percentComplete=0, priority=9)
    planner.create("Finished", percentComplete=100, priority=5)
    project = await link_planner(client, ada, planner)
    assert project["sourceId"] == planner.plan_id
    assert "clientSecret" not in project and "hookSecret" not in project
    finished, fresh, started = await tasks(client, ada)
    assert [t["status"] for t in (fresh, started, finished)] == [
        "Not Started",
        "In Progress",
        "Completed",
    ]
    assert [t["priority"] for t in (started, finished, fresh)] == ["Urgent", "Normal", "Low"]
    assert {a["_id"] for a in started["assignedTo"]} == {ada.user.id, bob.user.id}
    assert started["sync"]["unmatched"] == ["someone-else"]
    assert started["body"] == "Steps:\n- one\n- two"
    assert started["dueDate"].startswith("2026-12-24")
    assert {t["source"] for t in (fresh, started)} == {"Microsoft.Planner"}
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["counts"]["imported"]) == ("running", 3)
    assert planner.tokens_issued == 1  # one token, for the check and the import


async def test_a_change_here_goes_out_with_if_match(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member()
    bob = await factory.member()
    task_id = planner.create("Plan it", percentComplete=0, priority=5)
    await link_planner(client, ada, planner)
    (task,) = await tasks(client, ada)
    etag = planner.task(task_id)["@odata.etag"]  # type: ignore[index]
    await edit(
        client,
        ada,
        task["_id"],
        name="Planned",
        status="In Progress",
        priority="High",
        body="Why and how",
        assignedTo=[ada.user.id, bob.user.id],
        startDate="2026-12-08T00:00:00Z",
    )
    await run_jobs(client)
    there = planner.task(task_id)
    assert there is not None
    assert (there["title"], there["percentComplete"], there["priority"]) == ("Planned", 50, 3)
    assert there["description"] == "Why and how"
    assert set(there["assignments"]) == {ada.user.source_id, bob.user.source_id}
    assert there["startDateTime"] == "2026-12-08T00:00:00Z"
    (patch,) = planner.exchanges_to("PATCH", f"/planner/tasks/{task_id}")[:1]
    assert patch.request_headers["If-Match"] == etag
    (details_patch,) = planner.exchanges_to("PATCH", "/details")
    assert details_patch.request_headers["If-Match"].startswith('W/"')
    (task,) = await tasks(client, ada)
    assert task["sync"]["status"] is None
    await edit(client, ada, task["_id"], status="Completed", assignedTo=[bob.user.id])
    await run_jobs(client)
    there = planner.task(task_id)
    assert there is not None
    assert there["percentComplete"] == 100 and there["completedDateTime"] is not None
    assert set(there["assignments"]) == {bob.user.source_id}


async def test_a_stale_etag_pulls_the_change_there_then_sends_again(
    client, factory: Factory, planner: PlannerStandin
) -> None:
    ada = await factory.member()
    task_id = planner.create("Shared", priority=5)
    await link_planner(client, ada, planner)
    (task,) = await tasks(client, ada)
    planner.change(task_id, percentComplete=100)  # there, before the change here goes out
    await edit(client, ada, task["_id"], name="Renamed here")
    await run_jobs(client)
    assert [x.status for x in planner.exchanges_to("PATCH", task_id)] == [412, 200]
    there = planner.task(task_id)
    assert there is not None
    assert (there["title"], there["percentComplete"]) == ("Renamed here", 100)
    (task,) = await tasks(client, ada)
    assert (task["name"], task["status"], task["sync"]["status"]) == (
        "Renamed here",
        "Completed",
        None,
    )


async def _a_write_made_there_its_answer_lost(
    client: TestClient, member: Member, planner: PlannerStandin
) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """A linked task renamed and described here; Planner makes the task's part of the write and
    loses its answer (504). The project, the task's id there and the task here."""
    task_id = planner.create("Shared", priority=5)
    project = await link_planner(client, member, planner)
    (task,) = await tasks(client, member)
    planner.fail_next(status=504, after_change=True, path_part=f"/planner/tasks/{task_id}")
    await edit(client, member, task["_id"], name="Renamed here", body="Why and how")
    await run_jobs(client)
    assert planner.task(task_id)["title"] == "Renamed here"  # type: ignore[index]
    return project, task_id, task


async def _both_hold(
    client: TestClient,
    member: Member,
    planner: PlannerStandin,
    project: dict[str, Any],
    task_id: str,
    name: str,
    body: str,
) -> None:
    """Planner and the app hold `name` and `body`; nothing waits, conflicted or failed."""
    there = planner.task(task_id)
    assert there is not None
    assert (there["title"], there["description"]) == (name, body)
    (task,) = await tasks(client, member)
    assert (task["name"], task["body"], task["sync"]["status"]) == (name, body, None)
    status = await sync_status(client, member, project["_id"])
    assert (status["pending"], status["counts"]["conflicts"], status["lastError"]) == (0, 0, None)


async def test_a_write_whose_answer_was_lost_meets_412_pulls_and_arrives_once(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    """Planner made the change but its answer was lost (a timeout, or our own write of the new
    ETag failing after it): the stored ETag is stale, so the next try gets 412; the task is
    pulled, the change read back is ours (no conflict) and what had not gone yet goes."""
    ada = await factory.member()
    project, task_id, task = await _a_write_made_there_its_answer_lost(client, ada, planner)
    (task,) = await tasks(client, ada)
    assert task["sync"]["status"] == "Svc_PENDING"
    await poll(client, clock)  # the push's retry is due, and so is the poll
    assert [
        x.status for x in planner.exchanges_to("PATCH", task_id) if "/details" not in x.path
    ] == [
        504,
        412,
    ]
    assert [x.status for x in planner.exchanges_to("PATCH", "/details")] == [200]
    await _both_hold(client, ada, planner, project, task_id, "Renamed here", "Why and how")


async def test_an_edit_made_while_a_lost_write_waits_is_not_undone_by_that_write(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    """Planner applied a write whose answer was lost; the title is edited here again before the
    retry. The retry's 412 pull reads our own first write back (Planner keeps no change time):
    it is no change there, so the later edit goes out and nothing is logged as a conflict."""
    ada = await factory.member()
    project, task_id, task = await _a_write_made_there_its_answer_lost(client, ada, planner)
    await edit(client, ada, task["_id"], name="Renamed again")
    await poll(client, clock)  # the push's retry is due, and so is the poll
    await _both_hold(client, ada, planner, project, task_id, "Renamed again", "Why and how")


async def test_changes_there_come_in_by_poll_and_a_description_edit_by_the_sweep(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = planner.seed(12)
    await link_planner(client, ada, planner)
    planner.change(ids[0], percentComplete=60, priority=0)
    planner.describe(ids[1], "Edited in Planner")
    await poll(client, clock)
    by_name = {t["name"]: t for t in await tasks(client, ada)}
    assert (by_name["Task 0"]["status"], by_name["Task 0"]["priority"]) == ("In Progress", "Urgent")
    assert (
        len(details_read(planner)) < 12 + 12
    )  # the import read all; a poll, the moved and a tenth
    for _ in range(10):
        if by_name["Task 1"]["body"] == "Edited in Planner":
            break
        await poll(client, clock)
        by_name = {t["name"]: t for t in await tasks(client, ada)}
    assert by_name["Task 1"]["body"] == "Edited in Planner"


async def test_a_poll_of_many_moved_tasks_reads_their_details_in_batches(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = planner.seed(45)
    await link_planner(client, ada, planner)
    assert [len(batch) for batch in batches(planner)] == [20, 20, 5]  # the import: 3, not 45
    for task_id in ids[:30]:
        planner.change(task_id, percentComplete=100)
    before = len(batches(planner))
    await poll(client, clock)
    polled = batches(planner)[before:]
    read = sum(len(batch) for batch in polled)
    assert 30 <= read < 45 and len(polled) == (read + 19) // 20
    assert planner.exchanges_to("GET", "/details") == []
    done = [t for t in await tasks(client, ada) if t["status"] == "Completed"]
    assert len(done) == 30


async def test_a_batch_with_one_throttled_request_loses_nothing(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = planner.seed(25)
    project = await link_planner(client, ada, planner)
    for task_id in ids:
        planner.change(task_id, percentComplete=100)
    planner.fail_next(status=429, retry_after=120, path_part=f"/tasks/{ids[9]}/details")
    await poll(client, clock)
    throttled_at = planner.exchanges[-1].at
    by_source = {t["sourceId"]: t for t in await tasks(client, ada)}
    assert by_source[ids[9]]["status"] == "Not Started"  # throttled: not read yet
    assert sum(t["status"] == "Completed" for t in by_source.values()) == 24  # kept
    await poll(client, clock)  # 60 s later: within Retry-After, nothing goes
    assert planner.exchanges[-1].at == throttled_at
    await poll(client, clock)
    assert all(x.at >= throttled_at + timedelta(seconds=120) for x in planner.exchanges[-3:])
    assert {t["status"] for t in await tasks(client, ada)} == {"Completed"}
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["lastError"]) == ("running", None)


async def test_deletions_travel_both_ways(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    gone_there, gone_here = planner.seed(2)
    await link_planner(client, ada, planner)
    by_source = {t["sourceId"]: t for t in await tasks(client, ada)}
    deleted = await client.delete(
        f"/odata/tasks({by_source[gone_here]['_id']})", headers=ada.in_channel()
    )
    assert deleted.status == 204
    await run_jobs(client)
    assert planner.task(gone_here) is None
    (delete,) = planner.exchanges_to("DELETE")
    assert delete.request_headers["If-Match"].startswith('W/"')
    planner.delete(gone_there)
    for _ in range(2):  # deletions are looked for every second poll
        await poll(client, clock)
    assert await tasks(client, ada) == []


async def test_a_token_expiring_mid_sync_is_fetched_again_once(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    ids = planner.seed(7)  # three pages
    project = await link_planner(client, ada, planner)
    for task_id in ids:
        planner.change(task_id, priority=1)
    held = planner.hang_next(path_part="/$batch")  # the poll has listed the tasks
    polling = asyncio.create_task(poll(client, clock))
    await held.arrived.wait()
    planner.expire_tokens()  # the token the poll holds is refused from now on
    held.release()
    await polling
    assert planner.tokens_issued == 2
    assert any(x.status == 401 for x in planner.exchanges_to("POST", "/$batch"))
    assert {t["priority"] for t in await tasks(client, ada)} == {"Urgent"}
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["lastError"]) == ("running", None)


async def test_a_429_is_waited_out_and_revoked_credentials_pause(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (task_id,) = planner.seed(1)
    project = await link_planner(client, ada, planner)
    planner.change(task_id, title="Changed there")
    planner.fail_next(status=429, retry_after=120)
    await poll(client, clock)
    throttled_at = planner.exchanges[-1].at
    assert planner.exchanges[-1].status == 429
    await poll(client, clock)  # 60 s later: still within Retry-After
    assert planner.exchanges[-1].at == throttled_at  # nothing sent
    (task,) = await tasks(client, ada)
    assert task["name"] == "Task 0"
    for _ in range(3):
        await poll(client, clock)
    (task,) = await tasks(client, ada)
    assert task["name"] == "Changed there"
    planner.revoke()
    await poll(client, clock)
    status = await sync_status(client, ada, project["_id"])
    assert status["state"] == "paused"
    assert status["lastError"]["code"] == "Unauthorized"
    assert "Invalid client secret" in status["lastError"]["message"]
    assert planner.client_secret not in str(status)
    sent = len(planner.exchanges)
    await poll(client, clock)
    assert len(planner.exchanges) == sent  # nothing goes to Planner while paused


async def test_a_poll_that_read_a_task_before_a_push_wrote_it_does_not_undo_the_push(
    client, factory: Factory, planner: PlannerStandin, clock: FrozenClock
) -> None:
    """A poll lists a task, then a push made here meanwhile writes it and is stored before the
    poll stores what it read: the poll's older read is read again, not taken for a change
    there, and the item keeps what was sent."""
    ada = await factory.member()
    (task_id,) = planner.seed(1)
    await link_planner(client, ada, planner)
    planner.change(task_id, priority=1)  # moved there: the poll reads it
    held = planner.hang_next(after_change=True, path_part="/$batch")  # read; its answer waits
    polling = asyncio.create_task(poll(client, clock))
    await held.arrived.wait()
    (task,) = await tasks(client, ada)
    await edit(client, ada, task["_id"], name="Renamed here")
    await client.app[WORKER].run_once()  # the push, while the poll waits for its read
    assert planner.task(task_id)["title"] == "Renamed here"  # type: ignore[index]
    held.release()
    await polling
    (task,) = await tasks(client, ada)
    assert (task["name"], task["priority"], task["sync"]["status"]) == (
        "Renamed here",
        "Urgent",
        None,
    )

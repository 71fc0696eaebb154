"""5xx answers and hangs lose nothing: a push is retried and arrives once, a pull resumes from
its cursor; through the Azure DevOps connector and the local Azure DevOps over HTTP."""

import asyncio
import contextlib
from datetime import timedelta

from bot.clock import FrozenClock
from bot.jobs.worker import LEASE
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory, Member
from tests.sync.linking import bugs, hook_basic, link, run_jobs, sync_status
from tests.sync.test_sync_resume import held, ids_read, items_of

POLL = timedelta(seconds=61)


async def created_once(client, ada: Member, standin: AzureDevOpsStandin) -> None:  # noqa: ANN001
    """One work item there and one bug here for the create, linked, in step."""
    titles = [standin.work_item(i)["fields"]["System.Title"] for i in standin.store.items]  # type: ignore[index]
    assert sorted(titles) == ["New here", "Work item 0"]
    here = {bug["name"]: bug for bug in await bugs(client, ada)}
    assert sorted(here) == ["New here", "Work item 0"]
    there = {standin.work_item(i)["fields"]["System.Title"]: str(i) for i in standin.store.items}  # type: ignore[index]
    assert here["New here"]["sourceId"] == there["New here"]
    assert here["New here"]["sync"]["status"] is None


def sent_to(standin: AzureDevOpsStandin, work_item: int) -> list[int]:
    """The statuses of the PATCHes of one work item, in order."""
    return [x.status for x in standin.exchanges_to("PATCH", f"/workitems/{work_item}")]


async def test_a_push_meeting_a_500_waits_pending_and_arrives_once(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    standin.fail_next(status=500, path_part=f"/workitems/{work_item}")
    await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Sent twice"}, headers=ada.in_channel()
    )
    await run_jobs(client)
    (waiting,) = await bugs(client, ada)
    assert waiting["sync"]["status"] == "Svc_PENDING"
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["pending"]) == ("failing", 1)
    assert "500" in status["lastError"]["message"]
    clock.advance(POLL)
    await run_jobs(client)
    assert sent_to(standin, work_item) == [500, 200]
    there = standin.work_item(work_item)
    assert there is not None
    assert (there["fields"]["System.Title"], there["rev"]) == ("Sent twice", 2)
    (synced,) = await bugs(client, ada)
    assert synced["sync"]["status"] is None
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["pending"], status["lastError"]) == ("running", 0, None)


async def test_a_push_whose_answer_was_lost_is_not_made_twice(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    standin.fail_next(status=502, after_change=True, path_part=f"/workitems/{work_item}")
    await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Made once"}, headers=ada.in_channel()
    )
    await run_jobs(client)
    clock.advance(POLL)
    await run_jobs(client)
    there = standin.work_item(work_item)
    assert there is not None
    assert (there["fields"]["System.Title"], there["rev"]) == ("Made once", 2)
    (synced,) = await bugs(client, ada)
    assert (synced["name"], synced["sync"]["status"]) == ("Made once", None)
    status = await sync_status(client, ada, project["_id"])
    assert status["pending"] == 0
    assert status["counts"]["conflicts"] == 0  # its own change, read back, is no conflict


async def test_a_push_meeting_a_hang_is_taken_up_after_the_app_dies_and_arrives_once(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    hang = standin.hang_next(after_change=True, path_part=f"/workitems/{work_item}")
    await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Held"}, headers=ada.in_channel()
    )
    pushing = asyncio.create_task(run_jobs(client))
    await held(hang, pushing)  # made there, its answer held: the app dies waiting
    pushing.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await pushing
    (waiting,) = await bugs(client, ada)
    assert waiting["sync"]["status"] == "Svc_PENDING"
    clock.advance(LEASE + timedelta(seconds=1))  # the dead run's lease on the push runs out
    await run_jobs(client)
    hang.release()
    there = standin.work_item(work_item)
    assert there is not None
    assert (there["fields"]["System.Title"], there["rev"]) == ("Held", 2)
    (synced,) = await bugs(client, ada)
    assert (synced["name"], synced["sync"]["status"]) == ("Held", None)
    status = await sync_status(client, ada, project["_id"])
    assert (status["pending"], status["counts"]["conflicts"]) == (0, 0)


async def test_an_item_created_here_whose_answer_was_lost_is_created_there_once(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    standin.fail_next(status=500, after_change=True, path_part="/workitems/$Bug")
    made = await client.post(
        "/odata/bugs",
        json={"name": "New here", "projectId": project["_id"]},
        headers=ada.in_channel(),
    )
    assert made.status == 201, await made.text()
    await run_jobs(client)
    clock.advance(POLL)
    await run_jobs(client)
    await created_once(client, ada, standin)


async def test_an_item_created_here_whose_answer_was_lost_is_linked_when_a_pull_meets_it(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    standin.fail_next(status=500, after_change=True, path_part="/workitems/$Bug")
    made = await client.post(
        "/odata/bugs",
        json={"name": "New here", "projectId": project["_id"]},
        headers=ada.in_channel(),
    )
    assert made.status == 201, await made.text()
    await run_jobs(client)
    clock.advance(timedelta(seconds=5))
    told = await client.post(
        f"/api/sync/hooks/{project['_id']}",
        headers={"Authorization": hook_basic("tracker", project["hookSecret"])},
    )
    assert told.status == 202
    await run_jobs(client)  # the poll reads the work item the lost create made, before the retry
    clock.advance(POLL)
    await run_jobs(client)
    await created_once(client, ada, standin)


async def test_a_pull_meeting_a_500_resumes_from_its_cursor(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    project = await link(client, ada, standin)
    clock.advance(timedelta(seconds=1))
    made_there = standin.seed(210)  # two pages of 200 and 10 for the next poll
    standin.fail_next(status=500, path_part="/workitemsbatch")
    clock.advance(POLL)
    await run_jobs(client)  # the first page fails
    assert await items_of(client, ada) == []
    first_page = standin.hang_next(path_part="/workitemsbatch")
    clock.advance(POLL)
    polling = asyncio.create_task(run_jobs(client))
    await held(first_page, polling)
    standin.fail_next(status=500, path_part="/workitemsbatch")  # then the second page fails
    first_page.release()
    await polling
    assert len(await items_of(client, ada)) == 200
    status = await sync_status(client, ada, project["_id"])
    assert status["state"] == "failing"
    resumed_from = len(standin.exchanges)
    clock.advance(POLL)
    await run_jobs(client)
    assert len(set(ids_read(standin, resumed_from))) < 10 + 10  # from its cursor
    items = await items_of(client, ada)
    assert sorted(int(item["sourceId"]) for item in items) == sorted(made_there)
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["lastError"]) == ("running", None)


async def test_a_hook_that_comes_while_a_poll_runs_is_read_at_once_not_a_poll_later(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    # The poll's query is answered there, its answer held: the change comes after it.
    reading = standin.hang_next(after_change=True, path_part="/wiql")
    clock.advance(POLL)
    polling = asyncio.create_task(run_jobs(client))
    await held(reading, polling)
    standin.change(work_item, {"System.Title": "Renamed while polled"})
    told = await client.post(
        f"/api/sync/hooks/{project['_id']}",
        headers={"Authorization": hook_basic("tracker", project["hookSecret"])},
    )
    assert told.status == 202
    reading.release()
    await polling  # no time passes: only a poll asked for again reads the change
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Renamed while polled"

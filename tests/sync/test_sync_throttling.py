"""429 storms are waited out: nothing reaches the source before the `Retry-After` it gave has
passed (judged on the times the local Azure DevOps noted on its own clock), and nothing is lost."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.keys import WORKER
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import bugs, hook_basic, link, run_jobs, sync_status
from tests.sync.table.rig import too_soon

STEP = timedelta(milliseconds=500)  # finer than any Retry-After: a request sent early would show


async def test_a_429_storm_is_waited_out_and_nothing_is_lost(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    seeded = standin.seed(8, types=("Bug",))
    project = await link(client, ada, standin)
    # Pacing is judged one request at a time: a request already on its way when a 429 is sent
    # cannot have heeded it.
    client.app[WORKER].batch = 1
    standin.throttle(2, window_seconds=3)
    by_source = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    for work_item in seeded[:6]:
        patched = await client.patch(
            f"/odata/bugs({by_source[str(work_item)]['_id']})",
            json={"name": f"Here {work_item}"},
            headers=ada.in_channel(),
        )
        assert patched.status == 204
    for work_item in seeded[6:]:
        standin.change(work_item, {"System.Title": f"There {work_item}"})
    told = await client.post(
        f"/api/sync/hooks/{project['_id']}",
        headers={"Authorization": hook_basic("tracker", project["hookSecret"])},
    )
    assert told.status == 202
    wanted = {str(w): f"Here {w}" for w in seeded[:6]} | {str(w): f"There {w}" for w in seeded[6:]}
    for _ in range(400):
        await run_jobs(client)
        there = {str(w): standin.work_item(w)["fields"]["System.Title"] for w in seeded}  # type: ignore[index]
        if there == wanted:
            here = {bug["sourceId"]: bug["name"] for bug in await bugs(client, ada)}
            if here == wanted:
                break
        clock.advance(STEP)
    assert here == there == wanted
    assert [x for x in standin.exchanges if x.status == 429], "the source never throttled"
    assert too_soon(standin.exchanges) == []
    assert standin.throttle_violations == []
    assert [x.status for x in standin.exchanges_to("PATCH")].count(200) == 6  # each sent once
    status = await sync_status(client, ada, project["_id"])
    assert status["pending"] == 0
    assert all(bug["sync"]["status"] is None for bug in await bugs(client, ada))

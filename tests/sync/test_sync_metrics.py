"""The sync on /metrics: changes counted by direction and result, the changes waiting to go
out, and how far behind its source the least recently pulled project is."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.scrape import scrape
from tests.sync.linking import bugs, link, run_jobs

CHANGES = "sync_changes_total"


async def test_a_push_and_a_pull_are_counted_on_metrics(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    first, second = standin.seed(2, types=("Bug",))
    await link(client, ada, standin)
    samples = await scrape(client)
    assert samples.count(CHANGES, direction="in", result="imported") == 2
    assert samples.value("sync_pending") == 0
    assert samples.value("sync_lag_seconds") == 0

    bug = next(b for b in await bugs(client, ada) if b["sourceId"] == str(first))
    patched = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Renamed here"}, headers=ada.in_channel()
    )
    assert patched.status == 204, await patched.text()
    assert (await scrape(client)).value("sync_pending") == 1
    clock.advance(timedelta(minutes=1))
    standin.change(second, {"System.Title": "Renamed there"})
    assert (await scrape(client)).value("sync_lag_seconds") == 60
    clock.advance(timedelta(seconds=1))
    await run_jobs(client)

    samples = await scrape(client)
    assert samples.count(CHANGES, direction="out", result="applied") == 1
    assert samples.count(CHANGES, direction="in", result="applied") == 1
    assert samples.count(CHANGES, direction="in", result="imported") == 2
    assert samples.value("sync_pending") == 0
    assert samples.value("sync_lag_seconds") == 0
    assert {b["name"] for b in await bugs(client, ada)} == {"Renamed here", "Renamed there"}


async def test_a_push_the_source_fails_is_counted_failed_and_stays_pending(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    patched = await client.patch(
        f"/odata/bugs({bug['_id']})",
        json={"name": "Tried while it fails"},
        headers=ada.in_channel(),
    )
    assert patched.status == 204, await patched.text()
    standin.fail_next(status=500)
    await run_jobs(client)
    samples = await scrape(client)
    assert samples.count(CHANGES, direction="out", result="failed") == 1
    assert samples.count(CHANGES, direction="out", result="applied") == 0
    assert samples.value("sync_pending") == 1

"""Hooks, conflicts and refused credentials, through the Azure DevOps connector and the local
Azure DevOps over HTTP."""

from datetime import timedelta

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import bugs, hook_basic, link, run_jobs, sync_status


async def test_a_hook_call_reads_the_change_at_once(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    secret = project["hookSecret"]
    (subscription,) = [
        s for s in standin.subscriptions.values() if s["eventType"] == "workitem.updated"
    ]
    assert subscription["consumerInputs"]["basicAuthUsername"] == "tracker"
    clock.advance(timedelta(seconds=5))  # well before the next poll
    standin.change(work_item, {"System.Title": "Told by hook"})
    called = await client.post(
        f"/api/sync/hooks/{project['_id']}",
        json={"eventType": "workitem.updated"},
        headers={"Authorization": hook_basic("tracker", secret)},
    )
    assert called.status == 202
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Told by hook"


async def test_a_hook_call_with_wrong_credentials_reads_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    clock.advance(timedelta(seconds=5))
    standin.change(work_item, {"System.Title": "Not read"})
    before = len(standin.exchanges)
    for headers in (
        {},
        {"Authorization": hook_basic("tracker", "wrong")},
        {"Authorization": hook_basic("someone", project["hookSecret"])},
        {"Authorization": "Bearer " + project["hookSecret"]},
        {"X-Hub-Signature": "sha256=00"},
    ):
        called = await client.post(f"/api/sync/hooks/{project['_id']}", json={}, headers=headers)
        assert called.status == 401
        assert "error" in await called.json()
    unknown = await client.post(
        "/api/sync/hooks/0123456789abcdef01234567",
        headers={"Authorization": hook_basic("tracker", project["hookSecret"])},
    )
    assert unknown.status == 401
    await run_jobs(client)
    assert len(standin.exchanges) == before
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Work item 0"


async def test_both_sides_change_a_field_and_the_later_wins_with_the_log_saying_so(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    clock.advance(timedelta(seconds=10))
    here = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Made here"}, headers=ada.in_channel()
    )
    assert here.status == 204
    clock.advance(timedelta(seconds=10))
    standin.change(work_item, {"System.Title": "Made there, later"})
    await run_jobs(client)  # the push meets a stale rev: it pulls, and the later change wins
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Made there, later"
    assert bug["sync"]["status"] is None
    there = standin.work_item(work_item)
    assert there is not None and there["fields"]["System.Title"] == "Made there, later"
    status = await sync_status(client, ada, project["_id"])
    assert status["counts"]["conflicts"] == 1
    assert any("replaced the one made here" in line["message"] for line in status["log"])

"""Unlinking from the local Azure DevOps: sync switched off removes the service hooks the link
made and stops reading and sending, keeping the items; deleting the project removes them too
and moves its items to the channel's native project; a source that cannot remove its hooks
blocks neither."""

import asyncio
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory, Member
from tests.sync.linking import (
    ADO_STATES_WITHOUT_RESOLVED,
    ado_body,
    bugs,
    hook_basic,
    link,
    run_jobs,
    sync_status,
)


async def switch_sync(client: TestClient, member: Member, project_id: str, *, on: bool) -> dict:
    response = await client.patch(
        f"/api/projects/{project_id}", json={"sync": {"enabled": on}}, headers=member.in_channel()
    )
    assert response.status == 200, await response.text()
    return dict(await response.json())


async def call_hook(client: TestClient, project: dict[str, Any]) -> int:
    response = await client.post(
        f"/api/sync/hooks/{project['_id']}",
        json={"eventType": "workitem.updated"},
        headers={"Authorization": hook_basic("tracker", project["hookSecret"])},
    )
    return response.status


async def rename(client: TestClient, member: Member, bug_id: str, name: str) -> None:
    response = await client.patch(
        f"/odata/bugs({bug_id})", json={"name": name}, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def test_switching_sync_off_removes_the_hooks_and_stops_reading_and_sending(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    made = set(standin.subscriptions)
    assert len(made) == 3
    shown = await switch_sync(client, ada, project["_id"], on=False)
    assert (shown["sync"]["enabled"], shown["sync"]["state"]) == (False, "off")
    assert standin.subscriptions == {}
    removed = {x.path.rsplit("/", 1)[-1] for x in standin.exchanges_to("DELETE", "/hooks/")}
    assert removed == made
    (bug,) = await bugs(client, ada)
    assert (bug["source"], bug["sourceId"]) == ("Microsoft.Vsts", str(work_item))
    assert bug["projectId"]["_id"] == project["_id"]

    asked = len(standin.exchanges)
    standin.change(work_item, {"System.Title": "Renamed there"})
    assert await call_hook(client, project) == 401
    await rename(client, ada, bug["_id"], "Renamed here")
    clock.advance(timedelta(minutes=5))
    await run_jobs(client)
    assert len(standin.exchanges) == asked  # nothing read, nothing sent
    (bug,) = await bugs(client, ada)
    assert (bug["name"], bug["sync"]["status"]) == ("Renamed here", None)
    assert standin.work_item(work_item)["fields"]["System.Title"] == "Renamed there"  # type: ignore[index]
    status = await sync_status(client, ada, project["_id"])
    assert (status["state"], status["pending"]) == ("off", 0)
    assert status["log"][0]["message"].startswith("Sync switched off")


async def test_sync_switched_on_again_hooks_in_again_and_reads_what_changed_meanwhile(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    await switch_sync(client, ada, project["_id"], on=False)
    clock.advance(timedelta(minutes=1))
    standin.change(work_item, {"System.Title": "Renamed while off"})
    clock.advance(timedelta(minutes=1))
    shown = await switch_sync(client, ada, project["_id"], on=True)
    assert "hookSecret" not in shown  # the secret was shown once, when first linked
    await run_jobs(client)
    assert len(standin.subscriptions) == 3
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Renamed while off"
    assert len(await bugs(client, ada)) == 1  # linked again, nothing doubled
    assert await call_hook(client, project) == 202


async def test_hooks_the_source_cannot_remove_do_not_keep_sync_on(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    standin.fail_next(status=500)
    shown = await switch_sync(client, ada, project["_id"], on=False)
    assert shown["sync"]["state"] == "off"
    assert await call_hook(client, project) == 401  # those left behind are refused here
    status = await sync_status(client, ada, project["_id"])
    warning = status["log"][0]
    assert warning["level"] == "warning"
    assert "could not remove the service hook subscriptions" in warning["message"]
    assert all(sub in warning["message"] for sub in standin.subscriptions)
    assert standin.token not in warning["message"]
    # Switched on again, the link makes new ones; the old ones stay the source's to remove.
    await switch_sync(client, ada, project["_id"], on=True)
    await run_jobs(client)
    assert len(standin.subscriptions) == 6


async def test_deleting_a_synced_project_unlinks_it_and_keeps_its_items_here(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    resolved, active = standin.seed(
        2, types=("Bug",), fields=lambda n: {"System.State": ["Resolved", "Active"][n]}
    )
    project = await link(client, ada, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    before = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    assert before[str(resolved)]["status"] == "Invalid"
    response = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert response.status == 204, await response.text()
    assert standin.subscriptions == {}
    gone = await client.get(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert gone.status == 404

    after = {bug["_id"]: bug for bug in await bugs(client, ada)}
    assert set(after) == {bug["_id"] for bug in before.values()}
    native = {b["projectId"]["_id"] for b in after.values()}
    assert len(native) == 1 and native != {project["_id"]}
    for bug in after.values():
        assert (bug["source"], bug["sourceId"]) == ("Svc.Native", bug["_id"])
        assert bug["sync"]["status"] is None
    assert after[before[str(resolved)]["_id"]]["status"] == "Not Started"  # the primary status
    assert after[before[str(active)]["_id"]]["status"] == before[str(active)]["status"]

    asked = len(standin.exchanges)
    standin.change(active, {"System.Title": "Renamed there"})
    await rename(client, ada, before[str(active)]["_id"], "Renamed here")
    assert await call_hook(client, project) == 401
    clock.advance(timedelta(minutes=5))
    await run_jobs(client)
    assert len(standin.exchanges) == asked
    renamed = {bug["_id"]: bug["name"] for bug in await bugs(client, ada)}
    assert renamed[before[str(active)]["_id"]] == "Renamed here"


async def test_a_synced_project_is_deleted_while_its_source_is_down(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    standin.fail_next(status=500)
    response = await client.delete(f"/api/projects/{project['_id']}", headers=ada.in_channel())
    assert response.status == 204, await response.text()
    (bug,) = await bugs(client, ada)
    assert (bug["source"], bug["sourceId"]) == ("Svc.Native", bug["_id"])
    assert await call_hook(client, project) == 401


async def test_sync_switched_off_while_the_link_makes_its_hooks_leaves_none_and_imports_nothing(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",))
    response = await client.post("/api/projects", json=ado_body(standin), headers=ada.in_channel())
    assert response.status == 201, await response.text()
    project = await response.json()
    hang = standin.hang_next()  # the link job's first request, before it subscribes
    linking = asyncio.create_task(run_jobs(client))
    await hang.arrived.wait()
    await switch_sync(client, ada, project["_id"], on=False)
    hang.release()
    await linking
    assert standin.subscriptions == {}
    assert await bugs(client, ada) == []
    assert (await sync_status(client, ada, project["_id"]))["state"] == "off"


async def test_an_item_deleted_here_while_sync_is_off_stays_at_the_source(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    await switch_sync(client, ada, project["_id"], on=False)
    deleted = await client.delete(f"/odata/bugs({bug['_id']})", headers=ada.in_channel())
    assert deleted.status == 204, await deleted.text()
    await switch_sync(client, ada, project["_id"], on=True)
    await run_jobs(client)
    assert standin.work_item(work_item) is not None
    assert not standin.in_recycle_bin(work_item)
    assert standin.exchanges_to("DELETE", "/workitems/") == []


async def test_a_change_waiting_when_sync_is_switched_off_goes_out_once_it_is_on_again(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    await rename(client, ada, bug["_id"], "Waiting to go out")
    await switch_sync(client, ada, project["_id"], on=False)
    await run_jobs(client)
    assert standin.exchanges_to("PATCH", "/workitems/") == []
    (waiting,) = await bugs(client, ada)
    assert waiting["sync"]["status"] == "Svc_PENDING"
    await switch_sync(client, ada, project["_id"], on=True)
    await run_jobs(client)
    assert standin.work_item(work_item)["fields"]["System.Title"] == "Waiting to go out"  # type: ignore[index]
    (sent,) = await bugs(client, ada)
    assert sent["sync"]["status"] is None

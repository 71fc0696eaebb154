"""An import cut short resumes where it stopped, and doubles nothing: through the Azure DevOps
connector and the local Azure DevOps over HTTP, the app killed mid-import and a new one started
on the same database."""

import asyncio
import contextlib
from collections import Counter
from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.jobs.worker import LEASE
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.faults import Hang
from tests.factories import Factory, Member
from tests.sync.linking import ADO_STATES_WITHOUT_RESOLVED, ado_body, run_jobs, sync_status

WORK_ITEMS = 500
BUG_STATES = ["New", "Active", "Resolved", "Closed"]  # Resolved has no mapping here
TASK_STATES = ["New", "Active", "Closed"]


async def items_of(client: TestClient, member: Member) -> list[dict[str, Any]]:
    found = []
    for kind in ("bugs", "tasks"):
        listed = await client.get(
            f"/odata/{kind}", params={"$top": "1000"}, headers=member.in_channel()
        )
        assert listed.status == 200, await listed.text()
        found += [{**item, "kind": kind} for item in (await listed.json())["value"]]
    return found


async def held(hang: Hang, running: asyncio.Task[None]) -> None:
    """Return once the stand-in holds the hang's request (the jobs must not end first)."""
    arrived = asyncio.ensure_future(hang.arrived.wait())
    await asyncio.wait({arrived, running}, return_when=asyncio.FIRST_COMPLETED)
    if not arrived.done():
        arrived.cancel()
        raise AssertionError(f"the jobs ended before the hang was met: {running.result()!r}")


def ids_read(standin: AzureDevOpsStandin, since: int = 0) -> list[int]:
    """The work item ids the app read in batches, from the `since`-th exchange on."""
    return [
        work_item
        for exchange in standin.exchanges[since:]
        if exchange.method == "POST" and exchange.path.endswith("/workitemsbatch")
        for work_item in exchange.request_body["ids"]
    ]


async def test_an_import_killed_midway_resumes_on_a_new_app_and_doubles_nothing(
    client,
    second_app,  # noqa: ANN001
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    ada = await factory.member("Ada Lovelace")

    def fields(n: int) -> dict[str, Any]:
        states = BUG_STATES if n % 2 == 0 else TASK_STATES
        people = [f"Ada Lovelace <{ada.user.email}>", "Nobody Here <nobody@elsewhere.example>"]
        return {
            "System.State": states[(n // 2) % len(states)],
            "System.AssignedTo": people[n % 3] if n % 3 < 2 else None,
        }

    seeded = standin.seed(WORK_ITEMS, fields=fields)
    first_page = standin.hang_next(path_part="workitemsbatch")
    linked = await client.post(
        "/api/projects",
        json=ado_body(standin, states=ADO_STATES_WITHOUT_RESOLVED),
        headers=ada.in_channel(),
    )
    assert linked.status == 201, await linked.text()
    project_id = (await linked.json())["_id"]
    importing = asyncio.create_task(run_jobs(client))
    await held(first_page, importing)
    second_page = standin.hang_next(path_part="workitemsbatch")
    first_page.release()
    await held(second_page, importing)  # the first page is stored: the app dies reading the next
    importing.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await importing
    await client.close()

    restarted = await second_app()
    assert len(await items_of(restarted, ada)) == 200
    assert (await sync_status(restarted, ada, project_id))["state"] == "importing"
    resumed_from = len(standin.exchanges)
    clock.advance(LEASE + timedelta(seconds=1))  # the dead app's lease on the import runs out
    await run_jobs(restarted)
    second_page.release()

    items = await items_of(restarted, ada)
    assert len(items) == WORK_ITEMS
    by_source = {int(item["sourceId"]): item for item in items}
    assert sorted(by_source) == sorted(seeded)  # each work item once
    for kind, count in Counter(item["kind"] for item in items).items():
        numbers = sorted(item["internalId"] for item in items if item["kind"] == kind)
        assert numbers == list(range(1, count + 1)), kind
    assert len(set(ids_read(standin, resumed_from))) < WORK_ITEMS - 200 + 10  # not from scratch
    for n, work_item in enumerate(seeded):
        item = by_source[work_item]
        state = fields(n)["System.State"]
        if state == "Resolved":
            assert (item["status"], item["sync"]["status"]) == ("Invalid", "Svc_MAPPING_NOTFOUND")
        else:
            assert item["status"] != "Invalid" and item["sync"]["status"] is None
        if n % 3 == 0:
            assert [a["_id"] for a in item["assignedTo"]] == [ada.user.id]
        elif n % 3 == 1:
            assert item["assignedTo"] == [] and item["sync"]["unmatched"] == ["Nobody Here"]
        else:
            assert item["assignedTo"] == [] and "unmatched" not in item["sync"]
    status = await sync_status(restarted, ada, project_id)
    assert status["state"] == "running"
    assert status["counts"]["imported"] == WORK_ITEMS

    # Linked again (sync off, then on, then "sync now"): nothing is imported twice.
    for sync in ({"enabled": False}, {"enabled": True}):
        saved = await restarted.patch(
            f"/api/projects/{project_id}", json={"sync": sync}, headers=ada.in_channel()
        )
        assert saved.status == 200, await saved.text()
    again = await restarted.post(f"/api/projects/{project_id}/sync", headers=ada.in_channel())
    assert again.status == 202
    await run_jobs(restarted)
    assert sorted(int(item["sourceId"]) for item in await items_of(restarted, ada)) == sorted(
        seeded
    )
    assert (await sync_status(restarted, ada, project_id))["counts"]["imported"] == WORK_ITEMS

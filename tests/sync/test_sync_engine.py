"""The sync engine through the Azure DevOps connector and the local Azure DevOps over HTTP."""

import asyncio
from datetime import timedelta

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Factory
from tests.sync.linking import ADO_STATES_WITHOUT_RESOLVED, bugs, link, run_jobs, sync_status
from tests.waiting import until_set


async def test_link_imports_every_item_with_states_and_people_matched(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member("Ada Lovelace")
    standin.seed(
        3,
        types=("Bug",),
        fields=lambda n: {
            "System.State": ["Active", "Resolved", "New"][n],
            "System.AssignedTo": [
                f"Ada Lovelace <{ada.user.email}>",
                "Nobody Here <nobody@elsewhere.example>",
                None,
            ][n],
        },
    )
    project = await link(client, ada, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    imported = sorted(await bugs(client, ada), key=lambda bug: int(bug["sourceId"]))
    assert [bug["name"] for bug in imported] == ["Work item 0", "Work item 1", "Work item 2"]
    assert {bug["projectId"]["_id"] for bug in imported} == {project["_id"]}
    assert {bug["source"] for bug in imported} == {"Microsoft.Vsts"}
    assert sorted(bug["internalId"] for bug in imported) == [1, 2, 3]
    assert [bug["status"] for bug in imported] == ["In Progress", "Invalid", "Not Started"]
    assert [bug["sync"]["status"] for bug in imported] == [None, "Svc_MAPPING_NOTFOUND", None]
    assert [a["_id"] for a in imported[0]["assignedTo"]] == [ada.user.id]
    assert imported[1]["assignedTo"] == []
    assert imported[1]["sync"]["unmatched"] == ["Nobody Here"]
    assert "unmatched" not in imported[0]["sync"]
    invalid = await bugs(client, ada, **{"$filter": "sync/status eq 'Svc_MAPPING_NOTFOUND'"})
    assert [bug["_id"] for bug in invalid] == [imported[1]["_id"]]
    in_step = await bugs(client, ada, **{"$filter": "sync/status eq null"})
    assert len(in_step) == 2
    status = await sync_status(client, ada, project["_id"])
    assert status["state"] == "running"
    assert status["counts"]["imported"] == 3
    assert status["pending"] == 0


async def test_a_change_here_reaches_the_source_with_a_guarded_patch(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    patched = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Renamed here"}, headers=ada.in_channel()
    )
    assert patched.status == 204, await patched.text()
    (pending,) = await bugs(client, ada)
    assert pending["sync"]["status"] == "Svc_PENDING"
    await run_jobs(client)
    there = standin.work_item(work_item)
    assert there is not None
    assert there["fields"]["System.Title"] == "Renamed here"
    (patch,) = standin.exchanges_to("PATCH")
    operations = patch.request_body
    assert {"op": "test", "path": "/rev", "value": 1} in operations
    assert [op["path"] for op in operations if op["op"] != "test"] == ["/fields/System.Title"]
    (synced,) = await bugs(client, ada)
    assert synced["sync"]["status"] is None


async def test_a_change_there_arrives_by_polling_once_and_is_not_sent_back(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    clock.advance(timedelta(minutes=1))
    standin.change(work_item, {"System.Title": "Renamed there"})
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Renamed there"
    assert standin.exchanges_to("PATCH") == []
    async with factory.work() as uow:
        from sqlalchemy import select

        from bot.db.tables import PendingEvent

        triggers = await uow.values(
            select(PendingEvent.trigger).where(PendingEvent.item_id == bug["_id"])
        )
    assert triggers == ["ITEM_UPDATED"]
    status = await sync_status(client, ada, project["_id"])
    assert status["counts"]["pulled"] == 1


async def test_items_made_there_come_in_by_polling_with_who_made_them(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member("Ada Lovelace")
    standin.seed(1, types=("Bug",))
    project = await link(client, ada, standin)
    clock.advance(timedelta(minutes=1))
    by_ada = standin.create("Bug", {"System.Title": "Made by Ada"}, by=f"Ada <{ada.user.email}>")
    by_riley = standin.create("Bug", {"System.Title": "Made by Riley"})
    clock.advance(timedelta(seconds=61))
    await run_jobs(client)
    made = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    assert made[str(by_ada)]["name"] == "Made by Ada"
    assert sorted(bug["internalId"] for bug in made.values()) == [1, 2, 3]
    async with factory.work() as uow:
        from sqlalchemy import select

        from bot.db.tables import PendingEvent

        events = await uow.rows(
            select(PendingEvent.item_id, PendingEvent.trigger, PendingEvent.actor_id)
        )
    created = {(e["item_id"], e["trigger"], e["actor_id"]) for e in events}
    assert created == {
        (made[str(by_ada)]["_id"], "ITEM_CREATED", ada.user.id),
        (made[str(by_riley)]["_id"], "ITEM_CREATED", None),
    }
    status = await sync_status(client, ada, project["_id"])
    assert (status["counts"]["imported"], status["counts"]["pulled"]) == (1, 2)


async def test_polls_start_every_interval_however_long_one_took(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(1, types=("Bug",))
    await link(client, ada, standin)
    clock.advance(timedelta(seconds=61))  # the first poll is due
    slow = standin.hang_next(path_part="wiql")
    polling = asyncio.create_task(run_jobs(client))
    await until_set(slow.arrived, "the poll's query reached the source")
    clock.advance(timedelta(seconds=20))  # the poll takes 20 s
    slow.release()
    await polling
    standin.change(work_item, {"System.Title": "Renamed there"})
    clock.advance(timedelta(seconds=41))  # 61 s after the last poll started, 41 s after it ended
    await run_jobs(client)
    (bug,) = await bugs(client, ada)
    assert bug["name"] == "Renamed there"


async def test_an_item_of_an_unmapped_state_takes_its_status_once_the_state_is_mapped(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    standin.seed(1, types=("Bug",), fields=lambda n: {"System.State": "Resolved"})
    project = await link(client, ada, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    (bug,) = await bugs(client, ada)
    assert (bug["status"], bug["sync"]["status"]) == ("Invalid", "Svc_MAPPING_NOTFOUND")
    states = [
        *ADO_STATES_WITHOUT_RESOLVED,
        {"id": "Resolved", "name": "Resolved", "category": "Active"},
    ]
    saved = await client.patch(
        f"/api/projects/{project['_id']}", json={"states": states}, headers=ada.in_channel()
    )
    assert saved.status == 200, await saved.text()
    (bug,) = await bugs(client, ada)
    assert (bug["status"], bug["sync"]["status"]) == ("In Progress", None)


async def test_deletions_travel_both_ways(
    client, factory: Factory, standin: AzureDevOpsStandin, clock: FrozenClock
) -> None:
    ada = await factory.member()
    here, there = standin.seed(2, types=("Bug",))
    project = await link(client, ada, standin)
    by_source = {bug["sourceId"]: bug for bug in await bugs(client, ada)}
    deleted = await client.delete(
        f"/odata/bugs({by_source[str(here)]['_id']})", headers=ada.in_channel()
    )
    assert deleted.status == 204
    await run_jobs(client)
    assert standin.in_recycle_bin(here)
    standin.delete(there)
    for _ in range(2):  # deletions there are looked for at least every second poll
        clock.advance(timedelta(seconds=61))
        await run_jobs(client)
    assert await bugs(client, ada) == []
    status = await sync_status(client, ada, project["_id"])
    assert any("gone at the source" in line["message"] for line in status["log"])


async def test_priorities_travel_through_their_mappings(
    client, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    ada = await factory.member()
    (work_item,) = standin.seed(
        1, types=("Bug",), fields=lambda n: {"Microsoft.VSTS.Common.Priority": 1}
    )
    await link(client, ada, standin)
    (bug,) = await bugs(client, ada)
    assert bug["priority"] == "Urgent"
    patched = await client.patch(
        f"/odata/bugs({bug['_id']})", json={"priority": "Low"}, headers=ada.in_channel()
    )
    assert patched.status == 204
    await run_jobs(client)
    there = standin.work_item(work_item)
    assert there is not None and there["fields"]["Microsoft.VSTS.Common.Priority"] == 4

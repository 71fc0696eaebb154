"""An Azure DevOps project's states read again from the source: on `POST …/refresh`, when the
project is saved, and by the poll at least daily. New states arrive unmapped (their items are
Invalid until mapped) and the channel is told once; states gone there go with their mappings."""

from datetime import timedelta
from typing import Any

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.cards.samples import text_of
from tests.factories import Member
from tests.sync.linking import ADO_STATES_WITHOUT_RESOLVED, bugs, link, run_jobs, sync_status
from tests.teams.bot import Chat
from tests.teams.connector import Connector
from tests.teams.sync_rig import ada, bot, make_azure_devops, posted_cards, standin

__all__ = ["bot", "make_azure_devops", "standin"]

NEW_STATES = "New states at Azure DevOps"


def notices(connector: Connector) -> list[str]:
    return [text for text in map(text_of, posted_cards(connector)) if NEW_STATES in text]


async def refresh(client: TestClient, member: Member, project_id: str) -> Any:
    return await client.post(f"/api/projects/{project_id}/refresh", headers=member.in_channel())


async def status_mappings(client: TestClient, member: Member, project_id: str) -> set[str]:
    response = await client.get(
        "/odata/_fieldMappings",
        params={"$filter": f"projectId eq '{project_id}' and type eq 'status'"},
        headers=member.in_channel(),
    )
    assert response.status == 200, await response.text()
    return {mapping["sourceId"] for mapping in (await response.json())["value"]}


async def test_refresh_brings_new_states_unmapped_and_tells_the_channel_once(
    bot: TestClient, chat: Chat, connector: Connector, factory, standin: AzureDevOpsStandin
) -> None:
    member = await ada(factory)
    standin.seed(1, types=("Bug",), fields=lambda n: {"System.State": "Resolved"})
    project = await link(bot, member, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    assert "Resolved" not in {state["id"] for state in project["states"]}
    before = await status_mappings(bot, member, project["_id"])
    refreshed = await refresh(bot, member, project["_id"])
    assert refreshed.status == 200, await refreshed.text()
    states = {state["id"]: state["category"] for state in (await refreshed.json())["states"]}
    assert states["Resolved"] == "Active"
    assert await status_mappings(bot, member, project["_id"]) == before  # Resolved: unmapped
    (bug,) = await bugs(bot, member)
    assert (bug["status"], bug["sync"]["status"]) == ("Invalid", "Svc_MAPPING_NOTFOUND")
    await run_jobs(bot)
    (notice,) = notices(connector)
    assert "Resolved" in notice and "Fabrikam" in notice
    log = (await sync_status(bot, member, project["_id"]))["log"]
    assert any("New states at Microsoft.Vsts" in line["message"] for line in log)
    again = await refresh(bot, member, project["_id"])
    assert again.status == 200
    await run_jobs(bot)
    assert len(notices(connector)) == 1  # nothing new: nothing told


async def test_the_poll_reads_the_states_again_once_a_day(
    bot: TestClient,
    chat: Chat,
    connector: Connector,
    factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    standin.seed(1, types=("Bug",))
    project = await link(bot, member, standin)
    standin.add_state("Bug", "In Review")
    clock.advance(timedelta(hours=1))
    await run_jobs(bot)
    assert "In Review" not in {
        s["name"] for s in (await project_of(bot, member, project))["states"]
    }
    clock.advance(timedelta(days=1))
    await run_jobs(bot)
    member = await ada(factory)  # signed in again: a session ends after a day unused
    states = (await project_of(bot, member, project))["states"]
    assert "In Review" in {state["name"] for state in states}
    assert "In Review" not in await status_mappings(bot, member, project["_id"])
    (notice,) = notices(connector)
    assert "In Review" in notice
    clock.advance(timedelta(days=1, minutes=5))
    await run_jobs(bot)
    assert len(notices(connector)) == 1


async def project_of(client: TestClient, member: Member, project: dict[str, Any]) -> Any:
    response = await client.get(f"/api/projects/{project['_id']}", headers=member.in_channel())
    assert response.status == 200
    return await response.json()


async def test_a_refresh_the_source_refuses_changes_nothing(
    bot: TestClient, chat: Chat, factory, standin: AzureDevOpsStandin
) -> None:
    member = await ada(factory)
    project = await link(bot, member, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    standin.revoke_token()
    refused = await refresh(bot, member, project["_id"])
    assert refused.status == 400
    assert "refused the credentials" in (await refused.json())["error"]
    assert (await project_of(bot, member, project))["states"] == project["states"]
    native = await bot.get("/api/projects", headers=member.in_channel())
    native_id = next(
        p["_id"] for p in (await native.json())["value"] if p["source"] == "Svc.Native"
    )
    assert (await refresh(bot, member, native_id)).status == 400
    assert (await refresh(bot, member, "0" * 24)).status == 404


async def test_a_refresh_that_cannot_reach_the_source_changes_nothing(
    bot: TestClient, chat: Chat, factory, standin: AzureDevOpsStandin
) -> None:
    member = await ada(factory)
    project = await link(bot, member, standin, states=ADO_STATES_WITHOUT_RESOLVED)
    standin.fail_next(1, status=503)
    unreachable = await refresh(bot, member, project["_id"])
    assert unreachable.status == 502
    assert (await project_of(bot, member, project))["states"] == project["states"]

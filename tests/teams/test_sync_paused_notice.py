"""When Azure DevOps refuses the credentials, the project's sync pauses and its channel gets one
card saying which project, why, and what to do; refusals met while it is paused tell nothing
more, and once new credentials resume it, the next refusal is told again."""

import asyncio
from datetime import timedelta

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.keys import WORKER
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.cards.samples import text_of
from tests.factories import Factory, Member
from tests.sync.linking import bugs, link, run_jobs, sync_status
from tests.teams.bot import Chat
from tests.teams.connector import Connector
from tests.teams.sync_rig import ada, bot, make_azure_devops, posted_cards, standin
from tests.waiting import finished, until, until_set

__all__ = ["bot", "make_azure_devops", "standin"]

PAUSED = "A project's sync is paused"


def pause_notices(connector: Connector) -> list[str]:
    return [text for text in map(text_of, posted_cards(connector)) if PAUSED in text]


async def edit(client: TestClient, member: Member, bug_id: str, name: str) -> None:
    edited = await client.patch(
        f"/odata/bugs({bug_id})", json={"name": name}, headers=member.in_channel()
    )
    assert edited.status == 204, await edited.text()


async def test_the_channel_is_told_once_across_two_refusals_and_again_after_a_resume(
    bot: TestClient,
    chat: Chat,
    connector: Connector,
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    standin.seed(2, types=("Bug",))
    project = await link(bot, member, standin)
    first, second = await bugs(bot, member)
    connector.calls.clear()
    standin.revoke_token()
    held = standin.hang_next()  # one push's request waits while the other's is refused
    clock.advance(timedelta(seconds=10))
    await edit(bot, member, first["_id"], "First waits")
    await edit(bot, member, second["_id"], "Second waits")

    turn = asyncio.create_task(bot.app[WORKER].run_once())  # both pushes at once
    await until_set(held.arrived, "a push's request held by Azure DevOps")

    async def paused() -> bool:
        return (await sync_status(bot, member, project["_id"]))["state"] == "paused"

    await until(paused, "the project paused by the other push's refusal")
    held.release()  # its request is refused too, now that the sync is paused
    await finished(turn, "the worker's turn")
    await run_jobs(bot)
    assert [exchange.status for exchange in standin.exchanges if exchange.status == 401] == [
        401,
        401,
    ]
    [notice] = pause_notices(connector)
    assert "Fabrikam" in notice
    assert "Azure DevOps refused the credentials: " in notice and "TF400813" in notice
    assert f"PATCH /api/projects/{project['_id']}" in notice
    status = await sync_status(bot, member, project["_id"])
    assert [line["level"] for line in status["log"]].count("error") == 1

    clock.advance(timedelta(minutes=5))
    await run_jobs(bot)  # paused: nothing is asked of Azure DevOps, nothing more is told
    assert len(pause_notices(connector)) == 1

    standin.add_token("new-pat")
    saved = await bot.patch(
        f"/api/projects/{project['_id']}", json={"token": "new-pat"}, headers=member.in_channel()
    )
    assert saved.status == 200, await saved.text()
    await run_jobs(bot)
    assert (await sync_status(bot, member, project["_id"]))["pending"] == 0
    assert len(pause_notices(connector)) == 1

    standin.revoke_token("new-pat")
    clock.advance(timedelta(seconds=10))
    await edit(bot, member, first["_id"], "Refused again")
    await run_jobs(bot)
    assert len(pause_notices(connector)) == 2
    assert (await sync_status(bot, member, project["_id"]))["state"] == "paused"

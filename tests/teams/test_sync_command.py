"""`sync` in a channel, against the local Azure DevOps: the channel's synced projects with their
state, what waits and the last error; one project by name; `… now` pulls at once; and the item
card of a synced item says where it lives and what stops it syncing."""

from datetime import timedelta
from typing import Any
from urllib.parse import quote

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.teams.commands.sync_commands import SYNC_IN_A_CHANNEL
from cards.layout import Card
from tests.cards.samples import action, text_of, walk
from tests.factories import Factory
from tests.sync.linking import ADO_STATES_WITHOUT_RESOLVED as STATES
from tests.sync.linking import ado_body, bugs, link, run_jobs
from tests.teams.activities import personal_message
from tests.teams.bot import Chat
from tests.teams.connector import Connector
from tests.teams.sync_rig import ada, bot, make_azure_devops, standin

__all__ = ["bot", "make_azure_devops", "standin"]


def buttons(card: Card) -> list[str]:
    return [node["title"] for node in walk(card) if node.get("type") == "Action.Execute"]


def links_at_source(card: Card) -> list[str]:
    return [
        node["selectAction"]["url"]
        for node in walk(card)
        if node.get("type") == "TextRun" and "selectAction" in node
    ]


def work_item_url(standin: AzureDevOpsStandin, work_item: int | str) -> str:
    return f"{standin.org_url}/{quote(standin.project, safe='')}/_workitems/edit/{work_item}"


async def test_sync_lists_the_synced_projects_with_their_state_and_what_waits(
    bot: TestClient, chat: Chat, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    member = await ada(factory)
    empty = text_of(await chat.say("sync"))
    assert "No project of this channel syncs yet" in empty
    standin.seed(3, types=("Bug",))
    await link(bot, member, standin)
    first, *_ = await bugs(bot, member)
    edited = await bot.patch(
        f"/odata/bugs({first['_id']})", json={"name": "Edited here"}, headers=member.in_channel()
    )
    assert edited.status == 204

    card = await chat.say("sync")
    text = text_of(card)
    assert "Fabrikam" in text and "Azure DevOps" in text and "Running" in text
    assert "1 change" in text  # the edit waits to go out
    assert "3 imported · 0 pulled · 0 pushed" in text
    assert "Last error" not in text
    assert buttons(card) == ["Sync now"]
    assert text_of(await chat.say("sync FABRIKAM")) == text  # one project, named in any case


async def test_sync_refuses_an_unknown_project_one_that_does_not_sync_and_a_personal_chat(
    bot: TestClient,
    chat: Chat,
    connector: Connector,
    factory: Factory,
    standin: AzureDevOpsStandin,
    make_azure_devops: Any,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    await link(bot, member, standin)
    said = await chat.line("sync Northwind")
    assert said.startswith("This channel has no project called “Northwind”.")
    other = await make_azure_devops(clock=clock, project="Tailspin")
    body = ado_body(other, displayName="Tailspin", states=STATES, sync={"enabled": False})
    made = await bot.post("/api/projects", json=body, headers=member.in_channel())
    assert made.status == 201, await made.text()
    said = await chat.line("sync tailspin now")
    assert said.startswith("“Tailspin” does not sync with its source")
    text = text_of(await chat.say("sync"))
    assert "Fabrikam" in text and "Tailspin" not in text
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "sync"))
    assert connector.texts() == [SYNC_IN_A_CHANNEL]


async def test_sync_now_pulls_at_once_from_the_command_and_from_its_button(
    bot: TestClient,
    chat: Chat,
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    (work_item,) = standin.seed(1, types=("Bug",))
    await link(bot, member, standin)
    clock.advance(timedelta(seconds=5))  # the next poll is a minute away
    standin.change(work_item, {"System.Title": "Changed there"})
    await run_jobs(bot)
    [bug] = await bugs(bot, member)
    assert bug["name"] == "Work item 0"  # not pulled yet

    card = await chat.say("sync Fabrikam now")
    assert "Ada Lovelace started a pull from Azure DevOps for Fabrikam." in text_of(card)
    await run_jobs(bot)
    [bug] = await bugs(bot, member)
    assert bug["name"] == "Changed there"

    clock.advance(timedelta(seconds=5))
    standin.change(work_item, {"System.Title": "Changed again"})
    again = await chat.click(action(await chat.say("sync"), "Sync now"))
    assert "started a pull" in text_of(again)
    await run_jobs(bot)
    [bug] = await bugs(bot, member)
    assert bug["name"] == "Changed again"
    card = await chat.say("sync now")  # the channel's one synced project
    assert "started a pull from Azure DevOps for Fabrikam" in text_of(card)


async def test_sync_now_with_several_projects_asks_which(
    bot: TestClient, chat: Chat, factory: Factory, make_azure_devops: Any, clock: FrozenClock
) -> None:
    member = await ada(factory)
    for name in ("Fabrikam", "Contoso"):
        source = await make_azure_devops(clock=clock, project=name)
        await link(bot, member, source, displayName=name)
    said = await chat.line("sync now")
    assert said == (
        "Say which project to sync now, e.g. `sync Contoso now`. This channel syncs Contoso, "
        "Fabrikam."
    )


async def test_a_paused_project_says_what_to_do_and_does_not_start(
    bot: TestClient,
    chat: Chat,
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    (work_item,) = standin.seed(1, types=("Bug",))
    project = await link(bot, member, standin)
    [bug] = await bugs(bot, member)
    standin.revoke_token()
    clock.advance(timedelta(seconds=10))
    edited = await bot.patch(
        f"/odata/bugs({bug['_id']})", json={"name": "Waits"}, headers=member.in_channel()
    )
    assert edited.status == 204
    await run_jobs(bot)

    card = await chat.say("sync")
    text = text_of(card)
    assert "Paused" in text and "1 change" in text
    assert "Last error (just now): Unauthorized: " in text and "TF400813" in text
    to_do = f"Save new credentials on the project (its token: PATCH /api/projects/{project['_id']})"
    assert to_do in text
    assert buttons(card) == []
    requests = len(standin.exchanges)
    said = await chat.line("sync Fabrikam now")
    assert said.startswith("“Fabrikam” is paused: Azure DevOps refused the credentials.")
    await run_jobs(bot)
    assert len(standin.exchanges) == requests  # nothing was asked of the source

    item = await chat.say(f"bug {bug['internalId']}")
    assert "Waiting to be sent to Azure DevOps" in text_of(item)
    assert links_at_source(item) == [work_item_url(standin, work_item)]


async def test_the_item_card_links_to_the_work_item_and_says_its_sync_problem(
    bot: TestClient,
    chat: Chat,
    factory: Factory,
    standin: AzureDevOpsStandin,
    clock: FrozenClock,
) -> None:
    member = await ada(factory)
    in_step, unmapped = standin.seed(
        2, types=("Bug",), fields=lambda n: {"System.State": ["Active", "Resolved"][n]}
    )
    await link(bot, member, standin, states=STATES)
    shown = {bug["sourceId"]: bug for bug in await bugs(bot, member)}
    native = await bot.post("/odata/bugs", json={"name": "Ours"}, headers=member.in_channel())
    assert native.status == 201

    card = await chat.say(f"bug {shown[str(in_step)]['internalId']}")
    assert links_at_source(card) == [work_item_url(standin, in_step)]
    assert f"Synced with \nAzure DevOps {in_step}" in text_of(card)
    assert "Not synced" not in text_of(card)
    card = await chat.say(f"bug {shown[str(unmapped)]['internalId']}")
    assert "Not synced: no mapping for state Resolved" in text_of(card)
    card = await chat.say(f"bug {(await native.json())['internalId']}")
    assert links_at_source(card) == [] and "Synced with" not in text_of(card)

    standin.fail_next(status=400)  # the source refuses this one change
    clock.advance(timedelta(seconds=10))
    edited = await bot.patch(
        f"/odata/bugs({shown[str(in_step)]['_id']})",
        json={"name": "Refused"},
        headers=member.in_channel(),
    )
    assert edited.status == 204
    await run_jobs(bot)
    card = await chat.say(f"bug {shown[str(in_step)]['internalId']}")
    assert "Not synced: Azure DevOps refused the change: The service is unavailable." in text_of(
        card
    )
    assert links_at_source(card) == [work_item_url(standin, in_step)]


async def test_help_lists_sync_and_a_typo_of_it_is_offered_back(
    bot: TestClient, chat: Chat, factory: Factory, standin: AzureDevOpsStandin
) -> None:
    assert "sync, sync {project}, sync {project} now" in text_of(await chat.say("help all"))
    await link(bot, await ada(factory), standin)
    near_miss = await chat.say("snyc")
    assert "I didn't understand 'snyc'. Did you mean \nsync\n?" in text_of(near_miss)
    shown = await chat.click(action(near_miss, "sync"))
    assert "Fabrikam" in text_of(shown) and "Running" in text_of(shown)

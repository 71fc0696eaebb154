"""The engine's test table, changes made in Teams: a chat command and a card button change an
item of a synced project, and each change goes out once, for every source (tests/sync/table)."""

from datetime import timedelta

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from bot.fields.schemas import Category
from tests.cards.samples import action
from tests.factories import Factory
from tests.sync.linking import link_body, run_jobs
from tests.sync.table.rig import SourceRig
from tests.sync.table.test_table import POLL, tasks
from tests.teams.bot import Chat, facts
from tests.teams.sync_rig import ada as roster_ada


async def test_changes_out_from_a_chat_command_and_from_a_card_action(
    client: TestClient, chat: Chat, factory: Factory, rig: SourceRig, clock: FrozenClock
) -> None:
    ada = await roster_ada(factory)  # on the channel's roster, as the bot recorded her
    ids = rig.seed(2, states=[Category.NEW, Category.NEW])
    await link_body(client, ada, rig.link_body())
    first, second = await tasks(client, ada)
    clock.advance(timedelta(seconds=10))

    closed = await chat.say(f"close task {first['internalId']}")
    assert facts(closed)["Status"] == "Completed"
    shown = await chat.say(f"task {second['internalId']}")
    started = await chat.click(action(shown, "Start"))
    assert facts(started)["Status"] == "In Progress"
    waiting = {task["name"]: task["sync"]["status"] for task in await tasks(client, ada)}
    assert waiting == {"Item 0": "Svc_PENDING", "Item 1": "Svc_PENDING"}

    await run_jobs(client)
    assert [rig.category(i) for i in ids] == [Category.DONE, Category.ACTIVE]
    assert all(task["sync"]["status"] is None for task in await tasks(client, ada))
    written = len(rig.writes())
    clock.advance(POLL)
    await run_jobs(client)  # the poll reads the changes back: nothing goes out again
    assert len(rig.writes()) == written
    assert [task["status"] for task in await tasks(client, ada)] == ["Completed", "In Progress"]

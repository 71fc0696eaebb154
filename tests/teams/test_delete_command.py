"""`delete bug 9` / `delete task 3`: a card asking to confirm, naming the item; Delete removes it
as the API's DELETE does (only for a member of its channel), Cancel keeps it, and a confirm
after the item is gone says so."""

from dataclasses import replace

from aiohttp.test_utils import TestClient

from bot.teams.context import NOT_ON_ROSTER
from tests.cards.samples import action, actions, said, text_of
from tests.factories import Factory
from tests.teams.activities import GRACE, MALLORY
from tests.teams.bot import Chat, facts, rest_items


async def test_delete_asks_first_then_deletes_for_good(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug Keep me")
    await chat.say("new bug Login fails")
    asked = await chat.say("delete bug 2")
    assert "Delete #2 Login fails?" in text_of(asked)
    assert [button["type"] for button in actions(asked)] == ["Action.Execute"] * 2
    assert len(await rest_items(bot, factory, GRACE)) == 2  # nothing yet
    done = await chat.click(action(asked, "Delete"))
    assert said(done) == "Ada Lovelace deleted #2 Login fails"
    assert [item["name"] for item in await rest_items(bot, factory, GRACE)] == ["Keep me"]
    again = await chat.click(action(asked, "Delete"))  # the same card, clicked once more
    assert said(again) == "#2 was already deleted"
    assert "There is no bug #2 in this channel." in await chat.line("delete bug 2")


async def test_cancel_keeps_the_item(chat: Chat, bot: TestClient, factory: Factory) -> None:
    await chat.say("new task Write notes")
    asked = await chat.say("delete task 1")
    assert "Delete #1 Write notes?" in text_of(asked)
    kept = await chat.click(action(asked, "Cancel"))
    assert facts(kept)["ID"] == "#1"
    assert [item["name"] for item in await rest_items(bot, factory, GRACE, of="task")] == [
        "Write notes"
    ]


async def test_only_members_of_the_channel_may_delete(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug Mine")
    assert await chat.line("delete bug 1", sender=MALLORY) == NOT_ON_ROSTER
    asked = await chat.say("delete bug 1")
    refused = await replace(chat, sender=MALLORY).click(action(asked, "Delete"))
    assert NOT_ON_ROSTER in text_of(refused)
    assert [item["name"] for item in await rest_items(bot, factory, GRACE)] == ["Mine"]


async def test_in_the_personal_chat_delete_finds_the_items_channel(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug From the channel")
    asked = await chat.say("delete bug 1", personal=True)
    assert "Delete #1 From the channel?" in text_of(asked)
    done = await chat.click(action(asked, "Delete"), personal=True)
    assert said(done) == "Ada Lovelace deleted #1 From the channel"
    assert await rest_items(bot, factory, GRACE) == []

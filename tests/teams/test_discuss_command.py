"""`discuss bug 12`, `bug/12/discuss` and the item card's Discuss button: the item's thread is
started in its channel once, and every later ask links to the same thread."""

from aiohttp.test_utils import TestClient

from bot.directory.users import find_user, user_out
from bot.schemas import ItemKind
from bot.teams.commands import grammar
from cards.layout import Card
from tests.cards.samples import action, said
from tests.factories import CHANNEL, TEAM, Factory
from tests.teams.activities import ADA
from tests.teams.bot import Chat

ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"


def discussion_link(card: Card) -> str:
    link = action(card, "Open discussion")
    assert link["type"] == "Action.OpenUrl"
    return str(link["url"])


def threads_started(chat: Chat) -> list[dict]:
    return [call.body for call in chat.connector.sent() if call.path == "/v3/conversations"]


async def rest_messages(client: TestClient, factory: Factory, item_id: str, of: str) -> list:
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=ADA.object_id))
    headers = {
        "Cookie": f"graphNodeCookie={await factory.session(user)}",
        "x-svc-teamid": TEAM,
        "x-svc-channelId": CHANNEL,
    }
    response = await client.get(f"/api/{of}/{item_id}/messages", headers=headers)
    assert response.status == 200, await response.text()
    return list((await response.json())["value"])


def test_the_discuss_forms_parse() -> None:
    for text in ("discuss bug 12", "Discuss Bug #12", "bug/12/discuss", "/bug/12/discuss/"):
        assert grammar.parse(text) == grammar.Discuss(ItemKind.BUG, 12), text
    assert grammar.parse("task/3/discuss") == grammar.Discuss(ItemKind.TASK, 3)
    assert isinstance(grammar.parse("discuss bug twelve"), grammar.Unknown)


async def test_discuss_starts_the_thread_in_the_channel_and_links_to_it(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    created = await chat.say("new bug Crash on save")
    item_id = action(created, "Discuss")["data"]["itemId"]
    card = await chat.say("discuss bug 1")
    [started] = threads_started(chat)
    assert started["channelData"] == {"channel": {"id": CHANNEL}}
    assert started["activity"]["attachments"][0]["contentType"] == ADAPTIVE_CARD
    link = discussion_link(card)
    assert said(card) == "#1 is discussed in a thread in its channel"
    assert link.startswith(f"https://teams.microsoft.com/l/message/{CHANNEL}/")
    [root] = await rest_messages(bot, factory, item_id, "bugs")
    assert root["webUrl"] == link

    again = await chat.say("bug/1/discuss")
    assert threads_started(chat) == []  # already discussed: the same thread, not an error
    assert discussion_link(again) == link


async def test_the_discuss_button_starts_the_thread_once(chat: Chat) -> None:
    card = await chat.say("new task Write the docs")
    chat.connector.calls.clear()
    linked = await chat.click(action(card, "Discuss"))
    assert len(threads_started(chat)) == 1
    link = discussion_link(linked)
    chat.connector.calls.clear()
    assert discussion_link(await chat.click(action(card, "Discuss"))) == link
    assert threads_started(chat) == []
    assert discussion_link(await chat.say("discuss task 1")) == link


async def test_discuss_of_a_missing_bug_is_one_friendly_line(chat: Chat) -> None:
    line = await chat.line("discuss bug 99")
    assert "99" in line
    assert threads_started(chat) == []

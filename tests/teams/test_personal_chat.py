"""Commands in the 1:1 chat: lists show the caller's items across channels; an item number
several channels have is asked about with a choice card, and one channel's acts at once."""

from aiohttp.test_utils import TestClient

from tests.cards.samples import action, actions, text_of
from tests.factories import Factory
from tests.teams.activities import GRACE, personal_message
from tests.teams.bot import Chat, facts, rest_items
from tests.teams.connector import Connector

FILTERS = ("Mine", "Open", "All")


async def test_my_bugs_lists_my_items_of_every_channel(chat: Chat, connector: Connector) -> None:
    await chat.say("new bug In Bugs")
    await chat.say("bug/update/1/assigned/me")
    await chat.say("new bug In General", channel=connector.team_id)
    await chat.say("bug/update/1/assigned/me", channel=connector.team_id)
    await chat.say("new bug Not mine")
    shown = text_of(await chat.say("my bugs", personal=True))
    assert "In Bugs" in shown and "In General" in shown and "Not mine" not in shown
    assert "My bugs across channels" in shown


async def test_my_open_bugs_span_channels_and_the_filters_stay_mine(
    chat: Chat, connector: Connector
) -> None:
    for title in ("Open here", "Done here"):
        await chat.say(f"new bug {title}")
    await chat.say("new bug Open there", channel=connector.team_id)
    for number in (1, 2):
        await chat.say(f"bug/update/{number}/assigned/me")
    await chat.say("bug/update/1/assigned/me", channel=connector.team_id)
    await chat.say("close bug 2")
    card = await chat.say("open bugs", personal=True)
    shown = text_of(card)
    assert "My open bugs across channels" in shown
    assert "Open here" in shown and "Open there" in shown and "Done here" not in shown
    assert [button["title"] for button in actions(card) if button.get("title") in FILTERS] == [
        "Open",
        "All",
    ]  # every list in a chat is the caller's: no Mine
    every = await chat.click(action(card, "All"), personal=True)
    assert "Done here" in text_of(every) and "My bugs across channels" in text_of(every)


async def test_a_list_in_a_chat_takes_quotes_and_odata_words_as_text(chat: Chat) -> None:
    for number, title in enumerate(("It's broken", "Its fine", "Cats or dogs", "Cats"), start=1):
        await chat.say(f"new bug {title}")
        await chat.say(f"bug/update/{number}/assigned/me")
    shown = text_of(await chat.say("bugs/name/it's", personal=True))
    assert "It's broken" in shown and "Its fine" not in shown and "1–1 of 1" in shown
    shown = text_of(await chat.say("bugs/name/S OR D", personal=True))
    assert "Cats or dogs" in shown and "1–1 of 1" in shown
    shown = text_of(await chat.say("bugs/name/x') or ('a' eq 'a", personal=True))
    assert "No bugs here." in shown


async def test_a_number_in_one_channel_acts_at_once(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug Only here")
    card = await chat.say("close bug 1", personal=True)
    assert facts(card)["Status"] == "Completed"
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "Completed"


async def test_a_number_in_two_channels_asks_which(
    chat: Chat, bot: TestClient, factory: Factory, connector: Connector
) -> None:
    await chat.say("new bug In Bugs")
    await chat.say("new bug In General", channel=connector.team_id)
    choice = await chat.say("bug/update/1/status/in-progress", personal=True)
    assert "Several channels have a bug #1: which one?" in text_of(choice)
    assert sorted(button["title"] for button in actions(choice)) == [
        "Team A › Bugs",
        "Team A › General",
    ]
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "Not Started"  # nothing changed until a channel is chosen
    card = await chat.click(action(choice, "Team A › Bugs"))
    assert facts(card)["Status"] == "In Progress" and "In Bugs" in text_of(card)
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["status"] == "In Progress"


async def test_a_number_nowhere_is_not_found(chat: Chat, connector: Connector) -> None:
    connector.calls.clear()
    await chat.post(personal_message(chat.service_url, "bug 7"))
    assert connector.texts() == ["There is no bug #7 in your channels."]


async def test_new_bug_in_a_chat_asks_for_the_channel(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    choice = await chat.say("new bug From the chat", personal=True)
    assert "Which channel is the new bug for?" in text_of(choice)
    card = await chat.click(action(choice, "Team A › Bugs"))
    assert "From the chat" in text_of(card)
    [stored] = await rest_items(bot, factory, GRACE)
    assert stored["name"] == "From the chat"

"""After a card action changes an item, its thread's root card (shared by everyone in the
channel) is updated in place; the item card the bot answers carries `refresh`, so a stale copy
shows the item as it is when someone looks at it."""

from typing import Any

from bot.schemas import ItemKind
from cards.verbs import Verb, item_action_data
from tests.discussions.head.threads import WINDOW, Rig, facts
from tests.factories import CHANNEL
from tests.teams.activities import card_action


async def test_a_card_action_updates_the_shared_root_card_and_says_it_in_the_thread(
    rig: Rig, post: Any, service_url: str
) -> None:
    bug, _ = await rig.discussed_bug(name="Printer on fire")
    rig.connector.calls.clear()
    button = {
        "verb": Verb.SET_STATUS.value,
        "data": item_action_data(
            Verb.SET_STATUS, ItemKind.BUG, item_id=bug["_id"], channel_id=CHANNEL
        ),
    }
    response = await post(card_action(service_url, button, status="In Progress"))
    assert response.status == 200
    answered = (await response.json())["value"]
    refresh = answered["refresh"]["action"]
    assert (refresh["verb"], refresh["data"]["itemId"]) == (Verb.SHOW_ITEM.value, bug["_id"])

    await rig.turn()
    await rig.turn(WINDOW)
    [update] = rig.updates()
    assert facts(update.body["attachments"][0]["content"])["Status"] == "In Progress"
    [reply] = rig.replies()
    assert "moved it to In Progress" in reply.body["text"]

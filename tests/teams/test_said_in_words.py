"""What the bot says names things as people see them: an item by its number, a channel by its
name, a field by the form's label; never an internal id or an API property name."""

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from tests.cards.samples import action, text_of
from tests.factories import CHANNEL, Factory
from tests.teams.activities import GRACE, teams_activity
from tests.teams.bot import Chat, api_headers, rest_items


def _executes(element: Any) -> list[dict[str, Any]]:
    """Every Action.Execute anywhere in a card (a row's title included)."""
    if isinstance(element, list):
        return [found for item in element for found in _executes(item)]
    if not isinstance(element, dict):
        return []
    own = [element] if element.get("type") == "Action.Execute" else []
    return own + [found for value in element.values() for found in _executes(value)]


async def _delete_first_bug(bot: TestClient, factory: Factory) -> str:
    [stored] = await rest_items(bot, factory, GRACE)
    headers = await api_headers(factory, GRACE)
    response = await bot.delete(f"/odata/bugs('{stored['_id']}')", headers=headers)
    assert response.status == 204, await response.text()
    return str(stored["_id"])


@pytest.mark.parametrize("button", ["Edit", "Start", "Assign to me"])
async def test_a_button_of_a_deleted_item_says_which_number_was_deleted(
    chat: Chat, bot: TestClient, factory: Factory, button: str
) -> None:
    card = await chat.say("new bug First")
    item_id = await _delete_first_bug(bot, factory)
    answered = await chat.click(action(card, button))
    text = text_of(answered)
    assert "Bug #1 was deleted." in text
    assert item_id not in text and "not found" not in text


async def test_a_list_row_of_a_deleted_item_says_which_number_was_deleted(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    await chat.say("new bug First")
    listed = await chat.say("bugs")
    item_id = await _delete_first_bug(bot, factory)
    [row_button] = [found for found in _executes(listed) if found["verb"] == "item.show"]
    answered = await chat.click(row_button)
    assert "Bug #1 was deleted." in text_of(answered) and item_id not in text_of(answered)


async def test_a_button_in_a_channel_deleted_in_teams_names_the_channel(
    chat: Chat, bot: TestClient, factory: Factory
) -> None:
    card = await chat.say("new bug First")
    deleted = teams_activity(
        "conversationUpdate",
        chat.service_url,
        channel=CHANNEL,
        channel_name="Bugs",
        event_type="channelDeleted",
    )
    assert (await chat.post(deleted)).status == 200
    answered = await chat.click(action(card, "Edit"), personal=True)
    text = text_of(answered)
    assert "Channel 'Bugs' has been deleted in Teams." in text
    assert CHANNEL not in text

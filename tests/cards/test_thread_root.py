"""The thread's root card: the item's state in the connector card shape the API returns."""

import json

from cards.layout import TEAMS_LIMIT_BYTES
from cards.thread import CONNECTOR_CARD, root_attachment, root_card
from tests.cards.samples import bare, details, longest

URL = "https://tracker.example/bugs/0123456789abcdef01234567"


def fact_map(card: dict) -> dict[str, str]:
    return {fact["name"]: fact["value"] for fact in card["sections"][0]["facts"]}


def test_root_card_has_every_field_the_api_lists() -> None:
    card = root_card(details(12), item_url=URL)
    assert {"summary", "text", "title", "themeColor", "sections", "potentialAction"} <= set(card)
    section = card["sections"][0]
    assert set(section) == {
        "text",
        "facts",
        "title",
        "activityTitle",
        "activitySubtitle",
        "activityText",
        "activityImage",
        "activityImageType",
        "markdown",
    }
    [open_item] = card["potentialAction"]
    assert open_item["@type"] == "OpenUri"
    assert open_item["targets"] == [{"os": "default", "uri": URL}]


def test_root_card_states_the_item() -> None:
    item = details(12, status="In Progress", priority="High")
    card = root_card(item, item_url=URL)
    assert card["title"] == f"Bug #12: {item.name}"
    assert fact_map(card)["Status"] == "In Progress"
    assert fact_map(card)["Priority"] == "High"
    assert card["themeColor"] != root_card(details(12, bug=False), item_url=URL)["themeColor"]


def test_markup_in_the_item_is_escaped() -> None:
    card = root_card(
        details(3, name='<img src=x onerror="alert(1)">', body="<b>hi</b>"), item_url=URL
    )
    assert "<img" not in json.dumps(card)
    assert card["text"] == "&lt;b&gt;hi&lt;/b&gt;"


def test_root_card_fits_teams_limit_at_its_largest() -> None:
    for item in (bare(), longest()):
        attachment = root_attachment(root_card(item, item_url=URL))
        assert attachment["contentType"] == CONNECTOR_CARD
        assert len(json.dumps(attachment).encode()) < TEAMS_LIMIT_BYTES

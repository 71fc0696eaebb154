"""The thread's root: the Adaptive Card the bot posts (test_cards validates and parses it with
the others), and its description in the seed's connector-card shape, which the API returns."""

import json

from cards.thread import deleted_root_card, root_card, root_description
from tests.cards.samples import actions, details, facts, text_of
from tests.cards.sync_samples import synced_item

URL = "https://tracker.example/bugs/0123456789abcdef01234567"
HINT = "Mention @Tracker in your reply so it is kept here."


def fact_map(card: dict) -> dict[str, str]:
    return {fact["name"]: fact["value"] for fact in card["sections"][0]["facts"]}


def test_the_root_card_states_the_item_and_opens_it() -> None:
    item = details(12, status="In Progress", priority="High")
    card = root_card(item, item_url=URL)
    assert card["type"] == "AdaptiveCard"
    text = text_of(card)
    assert "Bug #12" in text and item.name in text and "Steps: open the page" in text
    shown = facts(card)
    assert (shown["Status"], shown["Priority"], shown["Severity"]) == (
        "In Progress",
        "High",
        "Medium",
    )
    assert (shown["Assigned to"], shown["Due"]) == ("Ada Lovelace", "2026-12-01")
    assert actions(card) == [{"type": "Action.OpenUrl", "title": "Open bug", "url": URL}]
    assert "Task #12" in text_of(root_card(details(12, bug=False), item_url=URL))


def test_the_root_card_asks_for_a_mention_only_when_told_to() -> None:
    assert HINT in text_of(root_card(details(), item_url=URL, mention="Tracker"))
    assert "Mention" not in text_of(root_card(details(), item_url=URL))


def test_markup_in_the_item_is_shown_as_typed() -> None:
    name = '**Bold** [x](https://evil) <img src=x onerror="alert(1)">'
    card = root_card(details(3, name=name, body="<b>hi</b>"), item_url=URL)
    runs = [node for node in card["body"] if node["type"] == "RichTextBlock"]
    assert any(run["inlines"][0]["text"] == name for run in runs)


def test_a_deleted_items_root_shows_its_last_state_marked_and_opens_nothing() -> None:
    described = root_description(details(12, name="Printer <on> fire"), item_url=URL)
    card = deleted_root_card(described)
    assert card["type"] == "AdaptiveCard"
    assert "Bug #12: Printer <on> fire (deleted)" in text_of(card)
    assert facts(card)["Status"] == "In Progress"
    assert actions(card) == []


def test_the_description_has_every_field_the_api_lists() -> None:
    card = root_description(details(12), item_url=URL)
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


def test_the_description_states_the_item() -> None:
    item = details(12, status="In Progress", priority="High")
    card = root_description(item, item_url=URL)
    assert card["title"] == f"Bug #12: {item.name}"
    assert fact_map(card)["Status"] == "In Progress"
    assert fact_map(card)["Priority"] == "High"
    other = root_description(details(12, bug=False), item_url=URL)
    assert card["themeColor"] != other["themeColor"]


def test_markup_in_the_description_is_escaped() -> None:
    card = root_description(
        details(3, name='<img src=x onerror="alert(1)">', body="<b>hi</b>"), item_url=URL
    )
    assert "<img" not in json.dumps(card)
    assert card["text"] == "&lt;b&gt;hi&lt;/b&gt;"


def test_the_root_of_a_synced_item_says_where_it_lives_not_its_passing_state() -> None:
    assert "Synced with \nAzure DevOps 42" in text_of(root_card(synced_item(), item_url=URL))
    refused = root_card(synced_item(status="Svc_SOURCE_ERROR", message="No."), item_url=URL)
    assert "Synced with \nAzure DevOps 42" in text_of(refused) and "No." not in text_of(refused)
    waiting = root_card(synced_item(source_id=None, status="Svc_PENDING"), item_url=URL)
    assert "Azure DevOps" not in text_of(waiting)
    assert "Synced with" not in text_of(root_card(details(), item_url=URL))

"""Cards as the chat console prints them: every word a person reads, one line each, and every
button numbered, wherever it sits (actions, action sets, rows one clicks)."""

import pytest

from bot.cli.chat.cardtext import card_text
from bot.schemas import ItemKind
from cards.help import CommandHelp, help_card
from cards.item import item_card
from cards.layout import envelope
from cards.listing import ItemList, list_card
from tests.cards.samples import bare, details, list_rows, statuses

URL = "https://tracker.example.test/bugs/000000000000000000abc00c"


def test_an_item_card_reads_as_its_facts_its_status_input_and_its_buttons() -> None:
    shown = card_text(item_card(details(12), item_url=URL, statuses=statuses()))
    assert "Login fails on Safari 12" in shown.lines
    assert "Status In Progress | Priority High | Severity Medium" in shown.lines  # the badges
    [status] = shown.inputs
    assert status.id == "status" and status.value == "In Progress"
    assert [title for title, _value in status.choices] == [
        "Not Started",
        "In Progress",
        "Completed",
    ]
    titles = [button.title for button in shown.buttons]
    assert titles[0] == "Set status" and "Assign to me" in titles
    for number, title in enumerate(titles, start=1):
        assert f"[{number}] {title}" in shown.lines


def test_a_list_card_reads_as_one_line_per_row_each_a_button() -> None:
    rows = list_rows(details(1), bare(2))
    page = ItemList(title="Bugs", kind=ItemKind.BUG, items=rows, command="bugs", channel_id="c")
    shown = card_text(list_card(page), first_number=4)
    assert shown.lines[0] == "Bugs"
    assert "# | Title | Status | Priority | Assignee | Due" in shown.lines
    assert (
        "[4] [ ] #1 | Login fails on Safari 1 | In Progress | High | Ada Lovelace | 2026-12-01"
        in shown.lines
    )
    assert "[5] [ ] #2 | Login fails on Safari 2 | In Progress | High | Nobody | –" in shown.lines
    assert shown.buttons[0].title.startswith("[ ] #1 | Login fails on Safari 1 | In Progress")
    assert shown.buttons[0].action["verb"] == "item.show"
    assert shown.buttons[-1].title == "Bulk edit selected"


def test_help_reads_as_its_commands_and_shortcuts() -> None:
    commands = [CommandHelp("bugs", "The channel's bugs", "Bugs"), CommandHelp("bug/{id}", "One")]
    shown = card_text(help_card(commands))
    assert shown.lines == ["Every command", "bugs  The channel's bugs", "bug/{id}  One", "[1] Bugs"]


CARD = envelope(
    [
        {"type": "TextBlock", "text": "First line\nsecond line"},
        {"type": "TextBlock", "text": "Hidden", "isVisible": False},
        {"type": "Image", "url": "https://example.com/a.png", "altText": "A chart"},
        {
            "type": "Table",
            "columns": [{"width": 1}, {"width": 1}],
            "rows": [
                {
                    "type": "TableRow",
                    "cells": [
                        {"type": "TableCell", "items": [{"type": "TextBlock", "text": "#1"}]},
                        {"type": "TableCell", "items": [{"type": "TextBlock", "text": "Open"}]},
                    ],
                    "selectAction": {"type": "Action.Execute", "verb": "item.show", "data": {}},
                },
                {
                    "type": "TableRow",
                    "cells": [
                        {
                            "type": "TableCell",
                            "items": [
                                {"type": "TextBlock", "text": "#2"},
                                {"type": "TextBlock", "text": "Two lines"},
                            ],
                        }
                    ],
                },
            ],
        },
        {
            "type": "Container",
            "items": [
                {"type": "Input.Text", "id": "title", "label": "Title", "value": "Crash"},
                {
                    "type": "Input.ChoiceSet",
                    "id": "who",
                    "label": "People",
                    "isMultiSelect": True,
                    "value": "a,b",
                    "choices": [{"title": "Ada", "value": "a"}, {"title": "Bob", "value": "b"}],
                },
                {"type": "Input.Toggle", "id": "select:1", "title": "#1"},
            ],
        },
        {
            "type": "ActionSet",
            "actions": [
                {"type": "Action.OpenUrl", "title": "Open", "url": "https://example.com/x"},
                {"type": "Action.ToggleVisibility", "title": "More", "targetElements": []},
            ],
        },
    ],
    [
        {"type": "Action.Submit", "title": "Send", "data": {"verb": "item.save"}},
        {"type": "Action.ShowCard", "title": "Details", "card": envelope([])},
        {"type": "Action.Execute", "title": "Keep", "verb": "x", "associatedInputs": "none"},
    ],
)


def test_any_card_reads_its_words_inputs_and_pressable_buttons() -> None:
    shown = card_text(CARD)
    assert shown.lines == [
        "First line",
        "second line",
        "A chart",
        "[1] #1 | Open",
        "#2",
        "Two lines",
        "Title: Crash  [title]",
        "People: Ada, Bob  (Ada / Bob)  [who]",
        "[ ] #1",
        "[2] Open",
        "[3] Send",
        "[4] Details",
        "[5] Keep",
    ]


def test_a_button_sends_the_cards_inputs_as_typed_by_id_or_label() -> None:
    buttons = card_text(CARD).buttons
    send = buttons[2]
    assert send.values({}) == {"title": "Crash", "who": "a,b", "select:1": "false"}
    typed = send.values({"People": "bob", "#1": "yes", "title": "Crash on start"})
    assert typed == {"title": "Crash on start", "who": "b", "select:1": "true"}
    assert buttons[4].values({"title": "ignored"}) == {}  # associatedInputs: none
    with pytest.raises(ValueError, match="'Carol' is not a choice for who; choose one of Ada, Bob"):
        send.values({"who": "Carol"})
    with pytest.raises(
        ValueError,
        match="No input named 'colour' on this card; inputs are: title, who, #1",
    ):
        send.values({"colour": "red"})

"""The personal notification cards and the note card: valid Adaptive Cards 1.5 under Teams'
limit, with what the person assigned reads."""

import pytest

from bot.schemas import ItemKind
from cards.assigned import assigned_card, assigned_list_card
from cards.help import MONOSPACE, note_card
from cards.layout import Card
from cards.listing import MAX_ROWS
from tests.cards.samples import (
    LONG,
    action,
    assert_valid,
    bare,
    details,
    list_rows,
    longest,
    text_of,
    walk,
)

URL = "https://tracker.example.test/bugs/000000000000000000abc00c"
BUG, TASK = ItemKind.BUG, ItemKind.TASK

CARDS: dict[str, Card] = {
    "bug": assigned_card(details(), actor="Ada Lovelace", item_url=URL),
    "bare task": assigned_card(bare(bug=False), actor="Ada Lovelace", item_url=URL),
    "longest": assigned_card(longest(), actor=LONG[:255], item_url=URL),
    "list": assigned_list_card(list_rows(*map(details, range(1, 4))), kind=BUG, actor="Ada"),
    "list longest": assigned_list_card(
        list_rows(*map(longest, range(1, 501))), kind=TASK, actor=LONG[:255]
    ),
    "note": note_card("Type `notify on` to have them again."),
}


@pytest.mark.parametrize("name", CARDS)
def test_card_is_valid_adaptive_card_under_teams_limit(name: str) -> None:
    assert_valid(CARDS[name])


def test_one_item_says_who_assigned_it_with_its_facts_and_a_link() -> None:
    shown = text_of(CARDS["bug"])
    assert "Ada Lovelace assigned you Bug #12" in shown
    assert "Login fails on Safari 12" in shown
    assert "In Progress" in shown and "High" in shown and "2026-12-01" in shown
    assert action(CARDS["bug"], "Open") == {"type": "Action.OpenUrl", "title": "Open", "url": URL}


def test_an_item_without_a_due_date_says_so() -> None:
    assert "No due date" in text_of(CARDS["bare task"])
    assert "Task #3" in text_of(CARDS["bare task"])


def test_several_items_are_one_list_of_the_first_rows() -> None:
    shown = text_of(CARDS["list"])
    assert "Ada assigned you 3 bugs" in shown and "1–3 of 3" in shown
    assert "actions" not in CARDS["list"]  # no bulk edit from a personal chat, nothing more
    assert "assigned you 500 tasks" in text_of(CARDS["list longest"])
    rows = [node for node in walk(CARDS["list longest"]) if node.get("selectAction")]
    assert 0 < len(rows) <= MAX_ROWS  # each row's title opens its item


def test_a_note_shows_commands_in_monospace() -> None:
    runs = [node for node in walk(CARDS["note"]) if node.get("type") == "TextRun"]
    assert [(run["text"], run.get("fontType")) for run in runs] == [
        ("Type ", None),
        ("notify on", MONOSPACE),
        (" to have them again.", None),
    ]

"""Pressing a button with values typed after its number, as a newcomer types them: values with
spaces (quoted or not), several inputs at once, choices in any case, rows ticked by their number;
and a press that cannot be made says what was wrong instead of going to the bot."""

import pytest

from bot.cli.chat.command import WELCOME, respond
from bot.cli.chat.console import Answer, Console, ConsoleError
from bot.demo import DemoOut
from tests.cli.chat.test_console import bugs


def lines(answers: list[Answer]) -> list[str]:
    return [line for answer in answers for line in answer.lines]


@pytest.mark.parametrize(
    ("typed", "status"),
    [
        ("1 status=Not Started", "Not Started"),
        ('1 status="not started"', "Not Started"),
        ("1 status='NOT STARTED'", "Not Started"),
        ("1 status=not-started", "Not Started"),
        ("1 Change status=completed", "Completed"),  # the input's label, spaces and all
    ],
)
async def test_a_value_with_spaces_presses_the_button(
    console: Console, demo: DemoOut, typed: str, status: str
) -> None:
    await respond(console, "bug 1")
    changed = await respond(console, typed)
    assert f"Ada Lovelace moved #1 to {status}" in lines(changed)
    assert (await bugs(console, demo))["Login button does nothing on Safari"]["status"] == status


async def test_the_welcome_examples_work_on_the_demo(console: Console, demo: DemoOut) -> None:
    for example in ("`bug 1`", "`1 status=Not Started`", "`bugs`", "`9 #1=yes #3=yes`"):
        assert example in WELCOME
    await respond(console, "bug 1")
    assert "Ada Lovelace moved #1 to Not Started" in lines(
        await respond(console, "1 status=Not Started")
    )
    await respond(console, "bugs")
    form = await respond(console, "9 #1=yes #3=yes")  # ticks two rows, presses Bulk edit
    assert "Edit 2 bugs" in lines(form)
    applied = await respond(console, "1 status=completed assignee=grace hopper")
    assert "2 of 2 bugs updated" in lines(applied)[0]
    stored = await bugs(console, demo)
    for title in ("Login button does nothing on Safari", "Search ignores accents (café vs cafe)"):
        assert stored[title]["status"] == "Completed"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("12", "Button 12 does not exist; this card has 1–6."),
        ("1 colour=red", "No input named 'colour' on this card; inputs are: status."),
        (
            "1 status=Done",
            "'Done' is not a choice for status; choose one of Not Started, In Progress, Completed.",
        ),
        ("1 bugs", "After a button's number, type the card's inputs as name=value"),
        ('1 status="In Progress', "The quote after status= is not closed."),
    ],
)
async def test_a_press_that_cannot_be_made_says_what_was_wrong(
    console: Console, demo: DemoOut, typed: str, said: str
) -> None:
    await respond(console, "bug 1")
    with pytest.raises(ConsoleError) as refused:
        await respond(console, typed)
    assert str(refused.value).startswith(said)
    assert (await bugs(console, demo))["Login button does nothing on Safari"]["status"] == (
        "In Progress"
    )


async def test_a_tick_takes_yes_or_no_only(console: Console, demo: DemoOut) -> None:
    await respond(console, "bugs")
    with pytest.raises(ConsoleError, match="'maybe' is not yes or no for #1"):
        await respond(console, "9 #1=maybe")


async def test_a_number_before_any_card_says_there_is_none_yet(console: Console) -> None:
    with pytest.raises(ConsoleError, match="Button 3 does not exist: no card with buttons yet"):
        await respond(console, "3 status=Done")

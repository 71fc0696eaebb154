"""What every card shares: the 1.5 envelope, Teams' size limit, text shortening, the common
elements and Execute buttons, all as plain dicts in the schema's own names.

Cards are built on every turn (a list card is some 200 elements), so they are dicts from the
start, never library objects serialised and parsed back; tests/cards validates each against the
official Adaptive Card 1.5 schema.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from bot.schemas import ApiModel
from cards.verbs import ActionData, ChannelAction, RunCommand

VERSION: Final = "1.5"
SCHEMA: Final = "http://adaptivecards.io/schemas/adaptive-card.json"
# Teams refuses a message over 28 KB; the activity around the card takes a little of that.
TEAMS_LIMIT_BYTES = 28 * 1024
CARD_BUDGET_BYTES = 26 * 1024
ELLIPSIS = "…"
NO_INPUTS = "none"  # an action's associatedInputs: send none of the card's inputs
COMPACT = "compact"  # a ChoiceSet's style: a drop-down
ATTENTION = "attention"  # the colour of what went wrong
GOOD = "good"  # the colour of a change made
PROBLEM_MAX = 300

_ASCII = bytes(range(128))

Card = dict[str, Any]
Element = dict[str, Any]


def envelope(
    body: Sequence[Element], actions: Sequence[Element] = (), *, full_width: bool = False
) -> Card:
    """An Adaptive Card 1.5 as a JSON-ready dict; `msteams` asks Teams for the full width."""
    card: Card = {"type": "AdaptiveCard", "version": VERSION, "$schema": SCHEMA, "body": body}
    if actions:
        card["actions"] = actions
    if full_width:
        card["msteams"] = {"width": "Full"}
    return card


def size_bytes(card: Card) -> int:
    """The card as the Bot Framework SDK posts it (json.dumps: ASCII escapes, spaced separators)."""
    return len(json.dumps(card).encode())


def size_bound(card: Card) -> int:
    """At least `size_bytes(card)`, far cheaper: orjson's compact UTF-8, plus a byte for
    every `,` and `:` (json.dumps follows each separator with a space), 2 for every non-ASCII
    byte (a character of 2, 3 or 4 UTF-8 bytes is escaped as 6, 6 or 12) and 5 for every DEL
    (escaped as 6, sent as is by orjson). Every other character is written alike by both."""
    compact = orjson.dumps(card)
    non_ascii = len(compact.translate(None, _ASCII))
    separators = compact.count(b",") + compact.count(b":")
    return len(compact) + separators + 2 * non_ascii + 5 * compact.count(b"\x7f")


def fits(card: Card) -> bool:
    """Within the budget: the bound decides most cards, `size_bytes` the ones near the limit."""
    try:
        if size_bound(card) <= CARD_BUDGET_BYTES:
            return True
    except orjson.JSONEncodeError:  # a lone surrogate, which json.dumps escapes
        pass
    return size_bytes(card) <= CARD_BUDGET_BYTES


def largest_fitting(build: Callable[[int], Card], count: int) -> Card:
    """`build(n)` for the largest n ≤ count whose card fits the budget (n = 0 must fit)."""
    low, high = 0, count
    best = build(count)
    if fits(best):
        return best
    best = build(0)
    while low < high - 1:
        middle = (low + high) // 2
        candidate = build(middle)
        if fits(candidate):
            low, best = middle, candidate
        else:
            high = middle
    return best


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters on one line, an ellipsis marking a cut."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + ELLIPSIS


def execute(
    title: str | None, data: ActionData | ChannelAction | RunCommand, **options: Any
) -> Element:
    """An Action.Execute whose data repeats the verb, so an Action.Submit could carry it too."""
    return execute_data(title, action_data(data), **options)


def execute_data(title: str | None, data: dict[str, Any], **options: Any) -> Element:
    """`execute` for data already dumped (see `cards.verbs.item_action_data`)."""
    action: Element = {"type": "Action.Execute", "verb": data["verb"], "data": data, **options}
    if title is not None:
        action["title"] = title
    return action


def submit(title: str, data: ActionData) -> Element:
    """For dialogs (task modules), which Teams closes only on Action.Submit."""
    return {"type": "Action.Submit", "title": title, "style": "positive", "data": action_data(data)}


def action_data(data: ApiModel) -> dict[str, Any]:
    """An action's data as Teams sends it back: API names, no empty fields."""
    dumped: dict[str, Any] = data.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def text_block(text: str, **options: Any) -> Element:
    """A TextBlock; it reads a little markdown, so only for text the app writes itself."""
    return {"type": "TextBlock", "text": text, **options}


def heading(text: str) -> Element:
    return text_block(text, size="large", weight="bolder", wrap=True)


def subtle(text: str, **options: Any) -> Element:
    return text_block(text, isSubtle=True, **options)


def text_run(text: str, **options: Any) -> Element:
    return {"type": "TextRun", "text": text, **options}


def rich_text(*runs: Element, **options: Any) -> Element:
    return {"type": "RichTextBlock", "inlines": list(runs), **options}


def plain(text: str, **options: Any) -> Element:
    """User text shown as typed: a TextRun does not read markdown, so `*x*` stays `*x*`."""
    return rich_text(text_run(text), **options)


def choice(title: str, value: str) -> Element:
    return {"title": title, "value": value}


def choice_set(input_id: str, label: str, choices: list[Element], **options: Any) -> Element:
    """A compact (drop-down) Input.ChoiceSet; options whose value is None are left out."""
    element: Element = {
        "type": "Input.ChoiceSet",
        "id": input_id,
        "label": label,
        "choices": choices,
        "style": COMPACT,
    }
    element.update((name, value) for name, value in options.items() if value is not None)
    return element


@dataclass(frozen=True)
class Problem:
    """What went wrong with a click, shown on the card again beside its cause: the input
    `field` (its id on the card), or with no field, by the buttons."""

    message: str
    field: str | None = None


def problem_line(problem: Problem) -> Element:
    """The problem in the attention colour; a TextRun, as it may quote what the user typed."""
    run = text_run(shorten(problem.message, PROBLEM_MAX), color=ATTENTION)
    return rich_text(run, spacing="small")


def with_problem(body: list[Element], problem: Problem | None) -> list[Element]:
    """The body with the problem right after its input, or last (above the buttons)."""
    if problem is None:
        return body
    after = next(
        (
            index
            for index, node in enumerate(body)
            if problem.field and node.get("id") == problem.field
        ),
        len(body) - 1,
    )
    return [*body[: after + 1], problem_line(problem), *body[after + 1 :]]


def action_set(actions: Sequence[Element], **options: Any) -> Element:
    """Buttons inside the body, where they belong to what is around them."""
    return {"type": "ActionSet", "actions": list(actions), **options}

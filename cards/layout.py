"""What every card shares: the 1.5 envelope, Teams' size limit, text shortening, Execute buttons."""

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

from adaptive_cards import card as ac
from adaptive_cards import types

from bot.schemas import ApiModel
from cards.verbs import ActionData, RunCommand

VERSION: Final = "1.5"
# Teams refuses a message over 28 KB; the activity around the card takes a little of that.
TEAMS_LIMIT_BYTES = 28 * 1024
CARD_BUDGET_BYTES = 26 * 1024
ELLIPSIS = "…"

Card = dict[str, Any]


def envelope(body: Sequence[Any], actions: Sequence[Any] = (), *, full_width: bool = False) -> Card:
    """An Adaptive Card 1.5 as a JSON-ready dict; `msteams` asks Teams for the full width."""
    builder = ac.AdaptiveCard.new().version(VERSION).add_items(list(body))
    if actions:
        builder = builder.add_actions(list(actions))
    if full_width:
        builder = builder.width(types.MSTeamsCardWidth.FULL)
    built: Card = json.loads(builder.create().to_json())
    return built


def size_bytes(card: Card) -> int:
    """The card as the Bot Framework SDK posts it (json.dumps: ASCII escapes, spaced separators)."""
    return len(json.dumps(card).encode())


def largest_fitting(build: Callable[[int], Card], count: int) -> Card:
    """`build(n)` for the largest n ≤ count whose card fits the budget (n = 0 must fit)."""
    low, high = 0, count
    best = build(count)
    if size_bytes(best) <= CARD_BUDGET_BYTES:
        return best
    best = build(0)
    while low < high - 1:
        middle = (low + high) // 2
        candidate = build(middle)
        if size_bytes(candidate) <= CARD_BUDGET_BYTES:
            low, best = middle, candidate
        else:
            high = middle
    return best


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters on one line, an ellipsis marking a cut."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + ELLIPSIS


def execute(title: str | None, data: ActionData | RunCommand, **options: Any) -> ac.ActionExecute:
    """An Action.Execute whose data repeats the verb, so an Action.Submit could carry it too."""
    # mode=None leaves out the library's `"mode": "primary"`, the default anyway: rows add up.
    return ac.ActionExecute(
        title=title, verb=data.verb.value, data=_json(data), mode=None, **options
    )


def submit(title: str, data: ActionData) -> ac.ActionSubmit:
    """For dialogs (task modules), which Teams closes only on Action.Submit."""
    return ac.ActionSubmit(
        title=title, data=_json(data), style=types.ActionStyle.POSITIVE, mode=None
    )


def _json(data: ApiModel) -> dict[str, Any]:
    dumped: dict[str, Any] = data.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def heading(text: str) -> ac.TextBlock:
    return ac.TextBlock(
        text=text, size=types.FontSize.LARGE, weight=types.FontWeight.BOLDER, wrap=True
    )


def plain(text: str, **options: Any) -> ac.RichTextBlock:
    """User text shown as typed: a TextRun does not read markdown, so `*x*` stays `*x*`."""
    return ac.RichTextBlock(inlines=[ac.TextRun(text=text)], **options)

"""The digest card: what happened to many items of a channel, told at once instead of a reply
in each item's thread (a noisy moment, or the channel's quiet hours ending)."""

from collections.abc import Sequence
from dataclasses import dataclass

from cards.layout import (
    Card,
    Element,
    envelope,
    execute,
    heading,
    largest_fitting,
    plain,
    shorten,
    subtle,
)
from cards.verbs import RunCommand, Verb

LINE_MAX = 300


@dataclass(frozen=True, slots=True)
class Told:
    """One item's line: "Bug #12: Checkout is down: Ada moved it to Done"."""

    summary: str
    url: str | None  # the item's page; None for an item since deleted


def digest_card(told: Sequence[Told], *, channel_id: str, kinds: set[str]) -> Card:
    """Every item's line that fits Teams' size limit, then "and N more" with buttons that list
    the channel's items."""

    def build(shown: int) -> Card:
        body = [
            heading(_title(len(told))),
            *(_line(entry) for entry in told[:shown]),
        ]
        actions = []
        if shown < len(told):
            body.append(subtle(f"and {len(told) - shown} more", wrap=True))
        for kind in sorted(kinds):  # "bugs" or "tasks": the list command of each kind told
            actions.append(
                execute(
                    f"Show {kind}",
                    RunCommand(verb=Verb.RUN_COMMAND, command=kind, channelId=channel_id),
                )
            )
        return envelope(body, actions)

    return largest_fitting(build, len(told))


def _title(count: int) -> str:
    return "1 item changed" if count == 1 else f"{count} items changed"


def _line(entry: Told) -> Element:
    text = plain(shorten(entry.summary, LINE_MAX))  # a RichTextBlock always wraps
    if not entry.url:
        return text
    return {
        "type": "Container",
        "items": [text],
        "spacing": "small",
        "selectAction": {"type": "Action.OpenUrl", "url": entry.url},
    }

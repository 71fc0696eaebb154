"""The widths Teams lays a card out for, and which elements each shows.

An element's `targetWidth` (read by Teams, not in the Adaptive Cards 1.5 schema) names the card
widths it shows at: one of WIDTHS, or a range as "atLeast:standard" / "atMost:narrow"; an element
without one shows at every width. Teams' documentation: very narrow (a meeting's chat), narrow (a
phone held upright), standard (a chat on a laptop), wide (a full-width card in a channel).
"""

from collections.abc import Mapping
from typing import Any, Final

TARGET: Final = "targetWidth"
WIDTHS: Final = ("veryNarrow", "narrow", "standard", "wide")
NARROW: Final = "narrow"
STANDARD: Final = "standard"
WIDE: Final = "wide"
# The widest card (in CSS pixels) of each width but the widest, as Adaptive Cards' host configs
# set them (hostWidth).
UP_TO_PIXELS: Final = {"veryNarrow": 216, "narrow": 413, "standard": 500}


def at_most(width: str) -> str:
    return f"atMost:{width}"


def at_least(width: str) -> str:
    return f"atLeast:{width}"


def width_of(pixels: int) -> str:
    """The width a card of `pixels` is laid out for."""
    return next((name for name, most in UP_TO_PIXELS.items() if pixels <= most), WIDE)


def shown_at(element: Mapping[str, Any], width: str) -> bool:
    """Whether Teams shows the element in a card of `width` (an unknown target: everywhere)."""
    target = str(element.get(TARGET) or "").casefold()
    if not target:
        return True
    bound, _, named = target.rpartition(":")
    folded = [name.casefold() for name in WIDTHS]
    if named not in folded:
        return True
    wanted, actual = folded.index(named), folded.index(width.casefold())
    if bound == "atleast":
        return actual >= wanted
    if bound == "atmost":
        return actual <= wanted
    return actual == wanted


def laid_out(node: Any, width: str) -> Any:
    """A card (or any part of one) as Teams lays it out at `width`: the elements it hides there
    left out, and no `targetWidth` left (a renderer that knows none shows the rest)."""
    if isinstance(node, list):
        return [
            laid_out(item, width)
            for item in node
            if not isinstance(item, Mapping) or shown_at(item, width)
        ]
    if isinstance(node, Mapping):
        return {key: laid_out(value, width) for key, value in node.items() if key != TARGET}
    return node

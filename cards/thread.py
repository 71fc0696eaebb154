"""The root of an item's thread: an Office 365 connector card in the shape the API returns.

It is the one card the bot sends that is not an Adaptive Card: the thread's head shows the item's
current state and opens the item; everything about the item is replied beneath it.
"""

from html import escape
from typing import Any

from bot.items.schemas import TaskDetails
from cards.item import facts, kind_of
from cards.layout import shorten

CONNECTOR_CARD = "application/vnd.microsoft.teams.card.o365connector"
TEXT_MAX = 1000
# The card's accent: red for bugs, blue for tasks, as their icons are.
THEME_COLORS = {"bug": "C4314B", "task": "0078D4"}


def root_card(item: TaskDetails, *, item_url: str) -> dict[str, Any]:
    """The item's connector card: title, description, facts, who made it, and an Open link."""
    kind = kind_of(item)
    title = f"{kind.type_label} #{item.internal_id}: {item.name}"
    creator = item.created_by.name if item.created_by else None
    editor = item.updated_by.display_name if item.updated_by else None
    return {
        "@type": "MessageCard",
        "@context": "https://schema.org/extensions",
        # Values are HTML-escaped: Teams renders a connector card's text as HTML/markdown.
        "summary": escape(shorten(title, 200)),
        "title": escape(title),
        "text": escape(shorten(item.body or "", TEXT_MAX)),
        "themeColor": THEME_COLORS[kind.value],
        "sections": [
            {
                "title": None,
                "text": None,
                "activityTitle": escape(f"Created by {creator}") if creator else None,
                "activitySubtitle": escape(f"Last changed by {editor}") if editor else None,
                "activityText": None,
                "activityImage": None,
                "activityImageType": "avatar",
                "facts": [
                    {"name": escape(label), "value": escape(value)} for label, value in facts(item)
                ],
                "markdown": False,
            }
        ],
        "potentialAction": [
            {
                "@type": "OpenUri",
                "@id": "open",
                "name": f"Open {kind.type_label.lower()}",
                "targets": [{"os": "default", "uri": item_url}],
            }
        ],
    }


def root_attachment(card: dict[str, Any]) -> dict[str, Any]:
    """The card as an activity attachment."""
    return {"contentType": CONNECTOR_CARD, "content": card}

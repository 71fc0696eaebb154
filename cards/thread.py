"""The root of an item's thread: the Adaptive Card the bot posts (and updates in place), and its
description in the seed's Office 365 connector-card shape, which the API returns as the root's
attachment. Nothing posts a connector card: Teams does not render one in every client, and one
cannot be refreshed.
"""

from dataclasses import replace
from datetime import datetime
from html import escape, unescape
from typing import Any

from bot.items.schemas import TaskDetails
from bot.messaging import DELETED
from bot.sync import whereabouts
from cards.item import fact_columns, facts, item_summary, kind_of, open_url
from cards.layout import Card, envelope, rich_text, shorten, text_block, text_run
from cards.synced import synced_lines

TEXT_MAX = 1000
NAME_MAX = 40
# The description's accent: red for bugs, blue for tasks, as their icons are.
THEME_COLORS = {"bug": "C4314B", "task": "0078D4"}


def root_card(
    item: TaskDetails, *, item_url: str, now: datetime | None = None, mention: str | None = None
) -> Card:
    """The thread's head: the item as its card shows it (its due date marked once past `now`),
    where a synced item lives, who made and last changed it, and a link to
    open it. With `mention` (the app's name), a line asking people to @mention the app in their
    replies: where Teams delivers only the messages that mention it, no other reply reaches it
    to be kept."""
    kind = kind_of(item)
    body = item_summary(item, now)
    synced = whereabouts.synced_at(item)
    if synced is not None and synced.source_item_id is not None:
        # Where it lives, which never changes; not its sync state, which changes between the
        # root's updates (those follow the item's changes).
        body += synced_lines(replace(synced, status=None, message=None))
    who = _who(item)
    if who:
        body.append(rich_text(text_run(who, size="small", isSubtle=True), spacing="small"))
    if mention:
        ask = f"Mention @{mention} in your reply so it is kept here."
        body.append(text_block(ask, size="small", wrap=True, spacing="small"))
    return envelope(body, [open_url(f"Open {kind.type_label.lower()}", item_url)])


def _who(item: TaskDetails) -> str:
    """ "Created by Ada · last changed by Grace": no times, as the root is updated only when the
    item changes."""
    said = f"Created by {shorten(item.created_by.name, NAME_MAX)}" if item.created_by else ""
    if item.updated_by:
        changed = f"changed by {shorten(item.updated_by.display_name, NAME_MAX)}"
        said = f"{said} · last {changed}" if said else f"Last {changed}"
    return said


def deleted_root_card(described: dict[str, Any]) -> Card:
    """The root of an item that was deleted, from its last description: its title and facts,
    marked deleted and greyed, with nothing to open (the item is gone)."""
    title = unescape(str(described.get("title") or ""))
    sections = described.get("sections") or [{}]
    stated = [
        (
            unescape(str(fact["name"])),
            rich_text(text_run(unescape(str(fact["value"])), isSubtle=True)),
        )
        for fact in sections[0].get("facts") or ()
    ]
    heading = text_run(title + DELETED, size="large", weight="bolder", isSubtle=True)
    body = [rich_text(heading)]
    if stated:
        body.append(fact_columns(stated))
    return envelope(body)


def root_description(item: TaskDetails, *, item_url: str) -> dict[str, Any]:
    """The root as the API describes it (the seed's connector-card shape): title, description,
    facts, who made it, and an Open link."""
    kind = kind_of(item)
    title = f"{kind.type_label} #{item.internal_id}: {item.name}"
    creator = item.created_by.name if item.created_by else None
    editor = item.updated_by.display_name if item.updated_by else None
    return {
        "@type": "MessageCard",
        "@context": "https://schema.org/extensions",
        # Values are HTML-escaped, as the seed's: a connector card's text reads as HTML/markdown.
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

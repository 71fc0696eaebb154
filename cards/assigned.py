"""The personal notification: in someone's 1:1 chat with the bot, who assigned them what."""

from collections.abc import Sequence
from datetime import datetime

from bot.items.schemas import TaskDetails
from bot.schemas import ItemKind
from cards.item import NAME_MAX, facts, kind_of
from cards.layout import Card, envelope, plain, rich_text, shorten, text_run
from cards.listing import MAX_ROWS, ItemList, ListRow, list_card

# Of the item card's facts, what matters to someone just given the item.
SHOWN_FACTS = ("Status", "Priority", "Due")


def assigned_card(item: TaskDetails, *, actor: str, item_url: str) -> Card:
    """One item: who assigned it, its title, status, priority and due date, and a link to it."""
    kind = kind_of(item)
    told = f"{shorten(actor, NAME_MAX)} assigned you {kind.type_label} #{item.internal_id}"
    shown = [(label, value) for label, value in facts(item) if label in SHOWN_FACTS]
    body = [
        rich_text(text_run(told, weight="bolder")),
        plain(item.name, spacing="small"),
        {"type": "FactSet", "facts": [{"title": label, "value": value} for label, value in shown]},
    ]
    return envelope(body, [{"type": "Action.OpenUrl", "title": "Open", "url": item_url}])


def assigned_list_card(
    rows: Sequence[ListRow], *, kind: ItemKind, actor: str, now: datetime | None = None
) -> Card:
    """Several items of a kind at once (a bulk edit): the list card under who assigned them,
    its first page of rows and how many there are (`my bugs` lists every one of yours)."""
    page = ItemList(
        title=f"{shorten(actor, NAME_MAX)} assigned you {len(rows)} {kind.plural}",
        kind=kind,
        items=rows[:MAX_ROWS],
        command=f"my {kind.plural}",
        total=len(rows),
        now=now,
    )
    return list_card(page)

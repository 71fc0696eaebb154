"""The list card: a page of bugs or tasks, "more" for the next page, checkboxes for bulk edit."""

from collections.abc import Sequence
from dataclasses import dataclass

from adaptive_cards import card as ac
from adaptive_cards import types

from bot.items.schemas import TaskDetails
from bot.schemas import ItemKind
from cards.item import assignee_names
from cards.layout import Card, envelope, execute, heading, largest_fitting, plain, shorten
from cards.verbs import SELECT_PREFIX, BulkEdit, ItemAction, More, Verb

# A chat card is read on a phone too; a row with its buttons takes about 0.7 KB of the 28 KB.
MAX_ROWS = 25
ROW_TITLE_MAX = 80
ROW_NAME_MAX = 24


@dataclass(frozen=True)
class ItemList:
    """One page of a listing, and how to ask for the next one."""

    title: str
    kind: ItemKind
    items: Sequence[TaskDetails]
    command: str  # the listing command: "more" runs it again from the first row not shown
    channel_id: str | None = None  # None: the caller's items across channels (no bulk edit)
    skip: int = 0
    more: bool = False  # rows exist after `items`
    total: int | None = None


def list_card(page: ItemList) -> Card:
    """Up to MAX_ROWS rows, fewer if Teams' size limit needs it; "more" continues after them."""
    rows = page.items[:MAX_ROWS]
    return largest_fitting(lambda count: _card(page, rows[:count], len(page.items)), len(rows))


def _card(page: ItemList, rows: Sequence[TaskDetails], given: int) -> Card:
    selectable = page.channel_id is not None
    body: list[object] = [heading(page.title)]
    if rows:
        body.append(_summary(page, len(rows)))
        body.extend(_row(page.kind, item, selectable=selectable) for item in rows)
    else:
        body.append(ac.TextBlock(text=f"No {page.kind.plural} here.", wrap=True))
    actions = []
    if page.more or len(rows) < given:
        more = More(
            verb=Verb.MORE,
            kind=page.kind,
            channel_id=page.channel_id,
            command=page.command,
            skip=page.skip + len(rows),
        )
        actions.append(execute("More", more))
    if selectable and rows and page.channel_id:
        bulk = BulkEdit(verb=Verb.BULK_EDIT, kind=page.kind, channel_id=page.channel_id)
        actions.append(execute("Bulk edit selected", bulk))
    return envelope(body, actions, full_width=True)


def _summary(page: ItemList, shown: int) -> ac.TextBlock:
    first, last = page.skip + 1, page.skip + shown
    of = f" of {page.total}" if page.total is not None else ""
    return ac.TextBlock(text=f"{first}–{last}{of}", is_subtle=True, spacing=types.Spacing.NONE)


def _row(kind: ItemKind, item: TaskDetails, *, selectable: bool) -> ac.ColumnSet:
    number = f"#{item.internal_id}"
    lead: ac.InputToggle | ac.TextBlock = (
        ac.InputToggle(id=SELECT_PREFIX + item.id, title=number)
        if selectable
        else ac.TextBlock(text=number)
    )
    show = ItemAction(verb=Verb.SHOW_ITEM, kind=kind, item_id=item.id, channel_id=item.channel_id)
    assignee = assignee_names(item.assigned_to, shown=1, name_max=ROW_NAME_MAX)
    return ac.ColumnSet(
        columns=[
            ac.Column(width="auto", items=[lead]),
            ac.Column(
                width="stretch",
                items=[plain(shorten(item.name, ROW_TITLE_MAX))],
                select_action=execute(None, show),
            ),
            ac.Column(width="auto", items=[ac.TextBlock(text=shorten(item.status, ROW_NAME_MAX))]),
            ac.Column(width="auto", items=[ac.TextBlock(text=assignee)]),
        ],
        separator=True,
    )

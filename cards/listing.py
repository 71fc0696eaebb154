"""The list card: a page of bugs or tasks, "more" for the next page, checkboxes for bulk edit."""

from collections.abc import Sequence
from dataclasses import dataclass

from bot.schemas import ItemKind
from cards.item import assignee_names
from cards.layout import (
    Card,
    Element,
    envelope,
    execute,
    execute_data,
    heading,
    largest_fitting,
    plain,
    shorten,
    subtle,
    text_block,
)
from cards.verbs import SELECT_PREFIX, BulkEdit, More, Verb, item_action_data

# A chat card is read on a phone too; a row with its buttons takes about 0.7 KB of the 28 KB.
MAX_ROWS = 25
ROW_TITLE_MAX = 80
ROW_NAME_MAX = 24


@dataclass(frozen=True, slots=True)
class ListRow:
    """What a row shows of an item (a list reads 25 of them a turn, so no model per row)."""

    id: str  # the item's _id
    internal_id: int
    name: str
    status: str
    channel_id: str  # the Teams channel (thread) id
    assignees: Sequence[str]  # display names, in order


@dataclass(frozen=True)
class ItemList:
    """One page of a listing, and how to ask for the next one."""

    title: str
    kind: ItemKind
    items: Sequence[ListRow]
    command: str  # the listing command: "more" runs it again from the first row not shown
    channel_id: str | None = None  # None: the caller's items across channels (no bulk edit)
    skip: int = 0
    more: bool = False  # rows exist after `items`
    total: int | None = None


def list_card(page: ItemList) -> Card:
    """Up to MAX_ROWS rows, fewer if Teams' size limit needs it; "more" continues after them."""
    rows = page.items[:MAX_ROWS]
    return largest_fitting(lambda count: _card(page, rows[:count], len(page.items)), len(rows))


def _card(page: ItemList, rows: Sequence[ListRow], given: int) -> Card:
    selectable = page.channel_id is not None
    body = [heading(page.title)]
    if rows:
        body.append(_summary(page, len(rows)))
        body.extend(_row(page.kind, item, selectable=selectable) for item in rows)
    else:
        body.append(text_block(f"No {page.kind.plural} here.", wrap=True))
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


def _summary(page: ItemList, shown: int) -> Element:
    first, last = page.skip + 1, page.skip + shown
    of = f" of {page.total}" if page.total is not None else ""
    return subtle(f"{first}–{last}{of}", spacing="none")


def _row(kind: ItemKind, item: ListRow, *, selectable: bool) -> Element:
    number = f"#{item.internal_id}"
    lead = (
        {"type": "Input.Toggle", "id": SELECT_PREFIX + item.id, "title": number}
        if selectable
        else text_block(number)
    )
    show = item_action_data(Verb.SHOW_ITEM, kind, item_id=item.id, channel_id=item.channel_id)
    assignee = assignee_names(item.assignees, shown=1, name_max=ROW_NAME_MAX)
    return {
        "type": "ColumnSet",
        "separator": True,
        "columns": [
            _column("auto", lead),
            _column("stretch", plain(shorten(item.name, ROW_TITLE_MAX)), execute_data(None, show)),
            _column("auto", text_block(shorten(item.status, ROW_NAME_MAX))),
            _column("auto", text_block(assignee)),
        ],
    }


def _column(width: str, item: Element, select_action: Element | None = None) -> Element:
    column: Element = {"type": "Column", "width": width, "items": [item]}
    if select_action:
        column["selectAction"] = select_action
    return column

"""The list card: a page of bugs or tasks in aligned columns, each title opening its item, quick
filters (Mine, Open, All), Previous and More, and checkboxes for bulk edit."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.schemas import ItemKind
from cards.item import assignee_names
from cards.layout import (
    Card,
    Element,
    Problem,
    action_set,
    envelope,
    execute,
    execute_data,
    heading,
    largest_fitting,
    rich_text,
    shorten,
    subtle,
    text_block,
    text_run,
    with_problem,
)
from cards.verbs import SELECT_PREFIX, BulkEdit, More, Verb, item_action_data

# A chat card is read on a phone too; a row with its button takes about 0.8 KB of the 28 KB.
MAX_ROWS = 25
ROW_TITLE_MAX = 80
ROW_NAME_MAX = 24
LINK = "accent"  # a title that opens its item reads as a link
CURRENT = "positive"  # the quick filter the list shows
NO_DUE = "–"
# The table's columns: heading and relative width.
# A due date (2026-11-22) fits its column in a full-width card on a laptop's Teams.
COLUMNS = (("#", 2), ("Title", 6), ("Status", 3), ("Priority", 2), ("Assignee", 3), ("Due", 3))


@dataclass(frozen=True, slots=True)
class ListRow:
    """What a row shows of an item (a list reads 25 of them a turn, so no model per row)."""

    id: str  # the item's _id
    internal_id: int
    name: str
    status: str
    channel_id: str  # the Teams channel (thread) id
    assignees: Sequence[str]  # display names, in order
    priority: str
    due_date: datetime | None


@dataclass(frozen=True)
class QuickFilters:
    """The listing commands the Mine, Open and All buttons run (Mine: None in a chat, whose
    lists are the caller's already) and the one this list shows."""

    mine: str | None
    open: str
    all: str
    current: str | None


@dataclass(frozen=True)
class ItemList:
    """One page of a listing, and how to ask for the pages around it."""

    title: str
    kind: ItemKind
    items: Sequence[ListRow]
    command: str  # the listing command: "more" runs it again from the first row not shown
    channel_id: str | None = None  # None: the caller's items across channels (no bulk edit)
    skip: int = 0
    more: bool = False  # rows exist after `items`
    total: int | None = None
    filters: QuickFilters | None = None


def list_card(page: ItemList, *, problem: Problem | None = None) -> Card:
    """Up to MAX_ROWS rows, fewer if Teams' size limit needs it; "more" continues after them;
    `problem` (a bulk edit with nothing ticked) shows above the buttons."""
    rows = page.items[:MAX_ROWS]
    return largest_fitting(
        lambda count: _card(page, rows[:count], len(page.items), problem), len(rows)
    )


def _card(page: ItemList, rows: Sequence[ListRow], given: int, problem: Problem | None) -> Card:
    selectable = page.channel_id is not None
    body = [heading(page.title)]
    if rows:
        body.append(_summary(page, len(rows)))
    if page.filters:
        body.append(_filters(page, page.filters))
    if rows:
        body.append(_table(page.kind, rows, selectable=selectable))
    else:
        body.append(text_block(f"No {page.kind.plural} here.", wrap=True))
    actions = []
    if page.skip > 0:
        actions.append(execute("Previous", _page_at(page, max(0, page.skip - MAX_ROWS))))
    if page.more or len(rows) < given:
        actions.append(execute("More", _page_at(page, page.skip + len(rows))))
    if selectable and rows and page.channel_id:
        bulk = BulkEdit(
            verb=Verb.BULK_EDIT,
            kind=page.kind,
            channel_id=page.channel_id,
            command=page.command,
            skip=page.skip,
        )
        actions.append(execute("Bulk edit selected", bulk))
    card = envelope(with_problem(body, problem), actions, full_width=True)
    # A list seen later shows the same page as it is then (Universal Actions' refresh).
    card["refresh"] = {"action": execute(None, _page_at(page, page.skip))}
    return card


def _page_at(page: ItemList, skip: int, command: str | None = None) -> More:
    return More(
        verb=Verb.MORE,
        kind=page.kind,
        channel_id=page.channel_id,
        command=command or page.command,
        skip=skip,
    )


def _summary(page: ItemList, shown: int) -> Element:
    first, last = page.skip + 1, page.skip + shown
    of = f" of {page.total}" if page.total is not None else ""
    return subtle(f"{first}–{last}{of}", spacing="none")


def _filters(page: ItemList, filters: QuickFilters) -> Element:
    buttons = []
    for title, command in (("Mine", filters.mine), ("Open", filters.open), ("All", filters.all)):
        if command is None:
            continue
        style = {"style": CURRENT} if command == filters.current else {}
        buttons.append(execute(title, _page_at(page, 0, command), **style))
    return action_set(buttons, spacing="small")


def _table(kind: ItemKind, rows: Sequence[ListRow], *, selectable: bool) -> Element:
    header = {
        "type": "TableRow",
        "cells": [_cell(text_block(title, weight="bolder")) for title, _width in COLUMNS],
    }
    return {
        "type": "Table",
        "columns": [{"width": width} for _title, width in COLUMNS],
        # The first row is the header by default; the schema spells the property
        # firstRowAsHeader, the renderers firstRowAsHeaders, so it is left to the default.
        "rows": [header, *(_row(kind, item, selectable=selectable) for item in rows)],
        "showGridLines": False,
        "verticalCellContentAlignment": "center",
    }


def _row(kind: ItemKind, item: ListRow, *, selectable: bool) -> Element:
    number = f"#{item.internal_id}"
    lead = (
        {"type": "Input.Toggle", "id": SELECT_PREFIX + item.id, "title": number}
        if selectable
        else text_block(number)
    )
    show = item_action_data(
        Verb.SHOW_ITEM, kind, item_id=item.id, channel_id=item.channel_id, number=item.internal_id
    )
    title = rich_text(text_run(shorten(item.name, ROW_TITLE_MAX), color=LINK))
    due = item.due_date.date().isoformat() if item.due_date else NO_DUE
    return {
        "type": "TableRow",
        "cells": [
            _cell(lead),
            _cell(title, execute_data(None, show)),
            _cell(text_block(shorten(item.status, ROW_NAME_MAX), wrap=True)),
            _cell(text_block(shorten(item.priority, ROW_NAME_MAX), wrap=True)),
            _cell(
                text_block(
                    assignee_names(item.assignees, shown=1, name_max=ROW_NAME_MAX), wrap=True
                )
            ),
            _cell(text_block(due)),
        ],
    }


def _cell(item: Element, select_action: Element | None = None) -> Element:
    cell: Element = {"type": "TableCell", "items": [item]}
    if select_action:
        cell["selectAction"] = select_action
    return cell

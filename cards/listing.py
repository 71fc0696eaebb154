"""The list card: a page of bugs or tasks, each title opening its item, quick filters (Mine, Open,
All), Previous and More, and checkboxes for bulk edit.

Laid out for the card's width (`cards.widths`): a full-width card in a channel shows aligned
columns (number, title, status, priority, assignee, due); a phone or a chat on a laptop shows the
number and the title, the other fields in a line under it, so no column is squeezed until its
words break.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bot.schemas import ItemKind
from cards.item import assignee_names
from cards.layout import (
    ATTENTION,
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
from cards.widths import STANDARD, WIDE, at_most

# A chat card is read on a phone too; a row with its button, its columns for a wide card and its
# line for a narrower one takes some 1.2 KB of the 28 KB.
MAX_ROWS = 18
ROW_TITLE_MAX = 80
ROW_NAME_MAX = 24
LINK = "accent"  # a title that opens its item reads as a link
CURRENT = "positive"  # the quick filter the list shows
NO_DUE = "–"
NO_BREAK_SPACE, NO_BREAK_HYPHEN = "\u00a0", "\u2011"
SEPARATOR = " · "
# The columns: heading, width (a weight, or pixels) and whether only a wide card shows it. A
# full-width card in a channel shows them all; a phone or a chat on a laptop shows the number
# and the title, the other fields in a line under the title.
COLUMNS: tuple[tuple[str, str | int, bool], ...] = (
    ("#", "72px", False),  # a tick box and "#12345" side by side
    ("Title", 6, False),
    ("Status", 3, True),
    ("Priority", 2, True),
    ("Assignee", 3, True),
    ("Due", 3, True),
)


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
    done: bool  # in a Done status


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
    now: datetime | None = None  # when the list is read; None: no due date shows as passed


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
        body.append(_header())
        body.extend(_row(page.kind, row, selectable=selectable, now=page.now) for row in rows)
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


def _header() -> Element:
    """The columns' names, shown where the columns are."""
    columns = [
        _column(width, wide_only, [text_block(title, weight="bolder")])
        for title, width, wide_only in COLUMNS
    ]
    return {"type": "ColumnSet", "columns": columns, "targetWidth": WIDE}


def _row(kind: ItemKind, item: ListRow, *, selectable: bool, now: datetime | None) -> Element:
    """One item: its number (a tick box for a bulk edit), its title opening it, and its fields,
    in columns in a wide card, in a line under the title in a narrower one."""
    number = f"#{item.internal_id}"
    lead = (
        {"type": "Input.Toggle", "id": SELECT_PREFIX + item.id, "title": number}
        if selectable
        else text_block(number)
    )
    show = item_action_data(
        Verb.SHOW_ITEM, kind, item_id=item.id, channel_id=item.channel_id, number=item.internal_id
    )
    status = shorten(item.status, ROW_NAME_MAX)
    priority = shorten(item.priority, ROW_NAME_MAX)
    assignee = assignee_names(item.assignees, shown=1, name_max=ROW_NAME_MAX)
    due = item.due_date.date().isoformat() if item.due_date else NO_DUE
    overdue = _overdue(item, now)
    fields = [status, priority, assignee]
    if item.due_date is not None:  # kept whole: no break at its space or hyphens
        fields.append("due" + NO_BREAK_SPACE + due.replace("-", NO_BREAK_HYPHEN))
    in_line = [text_run(SEPARATOR.join(fields), isSubtle=True)]
    if overdue:  # the date in red
        in_line = [
            text_run(SEPARATOR.join(fields[:-1]) + SEPARATOR, isSubtle=True),
            text_run(fields[-1], color=ATTENTION),
        ]
    title = [
        rich_text(text_run(shorten(item.name, ROW_TITLE_MAX), color=LINK)),
        rich_text(*in_line, spacing="none", targetWidth=at_most(STANDARD)),
    ]
    cells = [
        [lead],
        title,
        [text_block(status, wrap=True)],
        [text_block(priority, wrap=True)],
        [text_block(assignee, wrap=True)],
        [text_block(due, **({"color": ATTENTION} if overdue else {}))],
    ]
    columns = [
        _column(width, wide_only, items)
        for (_title, width, wide_only), items in zip(COLUMNS, cells, strict=True)
    ]
    columns[1]["selectAction"] = execute_data(None, show)
    return {"type": "ColumnSet", "columns": columns}


def _overdue(item: ListRow, now: datetime | None) -> bool:
    """Its due date passed, and it is not done."""
    return now is not None and item.due_date is not None and not item.done and item.due_date < now


def _column(width: str | int, wide_only: bool, items: list[Element]) -> Element:
    column: Element = {"type": "Column", "width": width, "items": items}
    if wide_only:
        column["targetWidth"] = WIDE
    return column

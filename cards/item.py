"""The item card: one bug or task at a glance (title, description, coloured badges, who and
when) and buttons for the common moves: change its status, take it, edit it, discuss it."""

from collections.abc import Sequence
from datetime import datetime

from bot.fields.schemas import Category, StatusOut
from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ItemKind
from bot.sync_records.schemas import SyncedAt
from cards.changes import Note, note_line
from cards.layout import (
    ATTENTION,
    NO_INPUTS,
    Card,
    Element,
    Problem,
    action_set,
    choice,
    choice_set,
    envelope,
    execute,
    plain,
    rich_text,
    shorten,
    subtle,
    text_block,
    text_run,
    with_problem,
)
from cards.synced import synced_lines
from cards.verbs import ItemAction, SetStatus, Verb
from cards.when import ago

NOBODY = "Nobody"
NO_DATE = "No due date"
NO_SEVERITY = "Not set"
NAMES_SHOWN = 3
NAME_MAX = 40
STATUS_INPUT = "status"
CHOOSE_STATUS = "Choose a status"
OVERDUE = "overdue"
OPEN = "Open"
DESCRIPTION_LINES = 3
DESCRIPTION_MAX = 280
# Adaptive Cards 1.5 has no badge: a badge is a column in a container style, which Teams paints
# as its background. Statuses by category; priorities and severities by the default names that
# say urgency (a channel's own names stay neutral).
NEUTRAL = "emphasis"
STATUS_STYLES = {Category.NEW: NEUTRAL, Category.ACTIVE: "accent", Category.DONE: "good"}
URGENCY_STYLES = {"urgent": "attention", "critical": "attention", "high": "warning"}
# The one-click move from each category: the button's title and the category it moves to.
MOVES = {
    Category.NEW: ("Start", Category.ACTIVE),
    Category.ACTIVE: ("Close", Category.DONE),
    Category.DONE: ("Reopen", Category.NEW),
}


def kind_of(item: TaskDetails) -> ItemKind:
    return ItemKind.BUG if isinstance(item, BugDetails) else ItemKind.TASK


def item_action(item: TaskDetails, verb: Verb) -> ItemAction:
    """The data a button on this item carries."""
    return ItemAction(
        verb=verb,
        kind=kind_of(item),
        item_id=item.id,
        channel_id=item.channel_id,
        number=item.internal_id,
    )


def facts(item: TaskDetails) -> list[tuple[str, str]]:
    """What is stated about the item, as (label, value) in display order (the thread's root
    card and the notifications list them; the item card shows most as badges)."""
    rows = [("ID", f"#{item.internal_id}"), ("Status", item.status), ("Priority", item.priority)]
    if isinstance(item, BugDetails):
        rows.append(("Severity", severity_of(item)))
    rows.append(("Assigned to", assignee_names([user.display_name for user in item.assigned_to])))
    rows.append(("Due", due_of(item)))
    return rows


def severity_of(item: BugDetails) -> str:
    return item.severity or NO_SEVERITY


def due_of(item: TaskDetails) -> str:
    return item.due_date.date().isoformat() if item.due_date else NO_DATE


def is_overdue(item: TaskDetails, now: datetime | None) -> bool:
    """Its due date has come (as the OVERDUE sweep has it) and its status is not a Done one."""
    return (
        now is not None
        and item.due_date is not None
        and item.due_date <= now
        and _category(item) is not Category.DONE
    )


def assignee_names(
    names: Sequence[str], *, shown: int = NAMES_SHOWN, name_max: int = NAME_MAX
) -> str:
    """The first few names, each shortened, then how many more: a card must stay small."""
    if not names:
        return NOBODY
    listed = ", ".join(shorten(name, name_max) for name in names[:shown])
    rest = len(names) - shown
    return f"{listed} and {rest} more" if rest > 0 else listed


def status_choices(statuses: Sequence[StatusOut], kind: ItemKind) -> list[Element]:
    """The kind's statuses in the channel's order."""
    return [choice(status.name, status.name) for status in own_statuses(statuses, kind)]


def own_statuses(statuses: Sequence[StatusOut], kind: ItemKind) -> list[StatusOut]:
    return sorted((s for s in statuses if s.type == kind.type_label), key=lambda s: s.order)


def item_card(
    item: TaskDetails,
    *,
    statuses: Sequence[StatusOut],
    item_url: str,
    discussion_url: str | None = None,
    now: datetime | None = None,
    note: Note | None = None,
    problem: Problem | None = None,
    synced: SyncedAt | None = None,
) -> Card:
    """A bug or task as the channel sees it after any change: `note` says what the click did,
    `problem` what it could not do (beside the status when it is about the status); times are
    relative to `now`; `item_url` its page; with `discussion_url`, a link to its thread where the
    Discuss button was; `synced`, where a synced item lives and its sync problem."""
    kind = kind_of(item)
    choices = status_choices(statuses, kind)
    current = next((c["value"] for c in choices if c["value"] == item.status), None)
    body: list[Element] = [note_line(note)] if note else []
    body += item_summary(item, now)
    body += synced_lines(synced) if synced else []
    history = text_run(_history(item, now), size="small", isSubtle=True)
    body.append(rich_text(history, spacing="small"))
    if choices:  # a channel without statuses of the kind has none to choose (and no Set status)
        body.append(
            choice_set(
                STATUS_INPUT,
                "Change status",
                choices,
                value=current,
                isRequired=True,
                errorMessage=CHOOSE_STATUS,
            )
        )
        # Under its input with the one-click move, not in the row below: five buttons there are
        # cut short in Teams.
        set_status = execute("Set status", item_action(item, Verb.SET_STATUS))
        move = _move(item, statuses)
        body.append(action_set([set_status, move] if move else [set_status]))
    buttons = _buttons(item, discussion_url, item_url)
    card = envelope(with_problem(body, problem), buttons)
    # Teams asks for the card again whenever someone sees it, so a stale copy shows the item
    # as it is now, whoever changed it since (Universal Actions' refresh).
    card["refresh"] = {"action": execute(None, item_action(item, Verb.SHOW_ITEM))}
    return card


def item_summary(item: TaskDetails, now: datetime | None) -> list[Element]:
    """The item at a glance, as its card and its thread's root show it: number, title as a
    heading, the description's first lines, badges, due date and assignees."""
    kind = kind_of(item)
    body = [subtle(f"{kind.type_label} #{item.internal_id}", size="small")]
    # The title as a heading, but as typed: a TextRun reads no markdown.
    body.append(rich_text(text_run(item.name, size="large", weight="bolder"), spacing="none"))
    description = first_lines(item.body or "")
    if description:
        body.append(plain(description, spacing="small"))
    body.append(_badges(item))
    due = text_block(due_of(item), wrap=True)
    if is_overdue(item, now):
        due = text_block(f"{due_of(item)} ({OVERDUE})", color=ATTENTION, wrap=True)
    names = assignee_names([user.display_name for user in item.assigned_to])
    body.append(fact_columns([("Due", due), ("Assigned to", plain(names))]))
    return body


def fact_columns(rows: Sequence[tuple[str, Element]]) -> Element:
    """Facts as a column of labels beside a column of values: unlike a FactSet, a value can be
    coloured (an overdue date) or shown as typed. Each label is the same kind of block as its
    value (they sit at different heights otherwise), and only the last value should wrap, so
    that every other row stays beside its label."""
    labels = [_label(label, value) for label, value in rows]
    values = [value for _label, value in rows]
    for index in range(1, len(rows)):  # rows as close as a FactSet's
        labels[index] = {**labels[index], "spacing": "small"}
        values[index] = {**values[index], "spacing": "small"}
    return {
        "type": "ColumnSet",
        "columns": [
            {"type": "Column", "width": "auto", "items": labels},
            {"type": "Column", "width": "stretch", "items": values},
        ],
    }


def first_lines(text: str, *, lines: int = DESCRIPTION_LINES, limit: int = DESCRIPTION_MAX) -> str:
    """The first few non-blank lines, spaces tidied, an ellipsis where the rest was left out."""
    kept = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    shown = "\n".join(kept[:lines])
    if len(shown) > limit:
        return shown[: limit - 1].rstrip() + "…"
    return shown + "\n…" if len(kept) > lines else shown


def _badges(item: TaskDetails) -> Element:
    category = _category(item)
    status_style = STATUS_STYLES[category] if category else NEUTRAL
    badges = [
        _badge("Status", item.status, status_style),
        _badge("Priority", item.priority, _urgency(item.priority)),
    ]
    if isinstance(item, BugDetails):
        badges.append(_badge("Severity", severity_of(item), _urgency(item.severity or "")))
    return {"type": "ColumnSet", "columns": badges, "spacing": "medium"}


def _category(item: TaskDetails) -> Category | None:
    """The category of the item's status; None for one the channel no longer has."""
    category = item.status_id.category
    return Category(category) if category in set(Category) else None


def _urgency(name: str) -> str:
    return URGENCY_STYLES.get(name.casefold(), NEUTRAL)


def _badge(label: str, value: str, style: str) -> Element:
    runs = (
        text_run(f"{label} ", size="small", isSubtle=True),
        text_run(shorten(value, NAME_MAX), size="small", weight="bolder"),
    )
    return {"type": "Column", "width": "auto", "style": style, "items": [rich_text(*runs)]}


def _history(item: TaskDetails, now: datetime | None) -> str:
    """ "Created 2 days ago by Ada · updated 5 min ago by Grace"."""
    creator = f" by {shorten(item.created_by.name, NAME_MAX)}" if item.created_by else ""
    said = f"Created {ago(item.created_at, now)}{creator}"
    if item.updated_at > item.created_at:
        editor = item.updated_by.display_name if item.updated_by else None
        said += f" · updated {ago(item.updated_at, now)}"
        said += f" by {shorten(editor, NAME_MAX)}" if editor else ""
    return said


def _label(label: str, value: Element) -> Element:
    if value["type"] == "RichTextBlock":
        return rich_text(text_run(label, weight="bolder"))
    return text_block(label, weight="bolder")


def _buttons(item: TaskDetails, discussion_url: str | None, item_url: str) -> list[Element]:
    discuss = (
        {"type": "Action.OpenUrl", "title": "Open discussion", "url": discussion_url}
        if discussion_url
        else execute("Discuss", item_action(item, Verb.DISCUSS), associatedInputs=NO_INPUTS)
    )
    # These ignore the status input, so an item whose status is gone can still change.
    return [
        execute("Assign to me", item_action(item, Verb.ASSIGN_TO_ME), associatedInputs=NO_INPUTS),
        execute("Edit", item_action(item, Verb.EDIT_ITEM), associatedInputs=NO_INPUTS),
        discuss,
        open_url(OPEN, item_url),
    ]


def open_url(title: str, url: str) -> Element:
    return {"type": "Action.OpenUrl", "title": title, "url": url}


def _move(item: TaskDetails, statuses: Sequence[StatusOut]) -> Element | None:
    """The one-click move on from the item's status category (Start, Close, Reopen), to the
    first status of the next category in the channel's order; None where there is none."""
    category = _category(item)
    if category is None:
        return None
    title, target = MOVES[category]
    own = own_statuses(statuses, kind_of(item))
    to = next((s for s in own if s.category == target and s.primary), None) or next(
        (s for s in own if s.category == target), None
    )
    if to is None:
        return None
    data = SetStatus(
        verb=Verb.SET_STATUS,
        kind=kind_of(item),
        item_id=item.id,
        channel_id=item.channel_id,
        number=item.internal_id,
        status=to.name,
    )
    return execute(title, data, associatedInputs=NO_INPUTS)

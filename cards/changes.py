"""What a click or a command did to an item, in one line at the top of the card it answers with:
"Ada Lovelace moved #2 to In Progress", "Nothing changed"."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.directory.schemas import UserOut
from bot.items.schemas import BugDetails, TaskDetails
from cards.layout import GOOD, Element, rich_text, shorten, text_run

NOTHING_CHANGED = "Nothing changed"
NAME_MAX = 40
VALUE_MAX = 60
NAMES_LISTED = 3


@dataclass(frozen=True)
class Note:
    """The line; `changed` False for a click that left the item as it was."""

    text: str
    changed: bool = True


NOTHING = Note(NOTHING_CHANGED, changed=False)


def note_line(note: Note) -> Element:
    """Green for a change, quiet for none; a TextRun, as it holds people's and items' names."""
    run = text_run(note.text, color=GOOD) if note.changed else text_run(note.text, isSubtle=True)
    return rich_text(run, spacing="none")


def created(actor: str, item: TaskDetails) -> Note:
    return Note(f"{_who(actor)} created #{item.internal_id}")


def copied(actor: str, original: TaskDetails, copy: TaskDetails) -> Note:
    return Note(f"{_who(actor)} copied #{original.internal_id} as #{copy.internal_id}")


def already_assigned(name: str, item: TaskDetails) -> Note:
    """An assignment that found the person assigned: nothing changed, and why."""
    return Note(f"{_who(name)} is already assigned to #{item.internal_id}", changed=False)


def not_assigned(name: str, item: TaskDetails) -> Note:
    """An unassignment that found the person not assigned: nothing changed, and why."""
    return Note(f"{_who(name)} is not assigned to #{item.internal_id}", changed=False)


def change(actor: str, before: TaskDetails, after: TaskDetails, *, actor_id: str) -> Note:
    """The difference between the item before and after, said the way a teammate would."""
    number = f"#{after.internal_id}"
    who = _who(actor)
    changed = [label for label, read in _FIELDS if read(before) != read(after)]
    if not changed:
        return NOTHING
    if changed == ["status"]:
        return Note(f"{who} moved {number} to {_value(after.status)}")
    if changed in (["priority"], ["severity"]):
        field = changed[0]
        return Note(f"{who} set the {field} of {number} to {_value(_FIELD_READERS[field](after))}")
    if changed == ["assignees"]:
        return Note(_assignment(who, number, before, after, actor_id=actor_id))
    if changed == ["due date"]:
        due = after.due_date.date().isoformat() if after.due_date else None
        return Note(
            f"{who} set {number} due {due}" if due else f"{who} removed the due date of {number}"
        )
    return Note(f"{who} changed the {_listed(changed)} of {number}")


def _assignment(
    who: str, number: str, before: TaskDetails, after: TaskDetails, *, actor_id: str
) -> str:
    was = {user.id for user in before.assigned_to}
    now = {user.id for user in after.assigned_to}
    added = [user for user in after.assigned_to if user.id not in was]
    removed = [user for user in before.assigned_to if user.id not in now]
    if added and not removed:
        if [user.id for user in added] == [actor_id]:
            return f"{who} assigned themselves to {number}"
        return f"{who} assigned {number} to {_names_of(added)}"
    if removed and not added:
        if [user.id for user in removed] == [actor_id]:
            return f"{who} unassigned themselves from {number}"
        return f"{who} unassigned {_names_of(removed)} from {number}"
    if [user.id for user in after.assigned_to] == [actor_id]:
        return f"{who} assigned themselves to {number} instead"
    return f"{who} assigned {number} to {_names_of(after.assigned_to)} instead"


def _names_of(users: Sequence[UserOut]) -> str:
    return _names([user.display_name for user in users])


def _severity(item: TaskDetails) -> str | None:
    return item.severity if isinstance(item, BugDetails) else None


# What the line compares, in the order it lists them: each by the name a user knows it by.
_FIELD_READERS: dict[str, Callable[[TaskDetails], object]] = {
    "title": lambda item: item.name,
    "description": lambda item: item.body or "",
    "status": lambda item: item.status,
    "priority": lambda item: item.priority,
    "severity": _severity,
    "assignees": lambda item: [user.id for user in item.assigned_to],
    "start date": lambda item: item.start_date,
    "due date": lambda item: item.due_date,
}
_FIELDS = tuple(_FIELD_READERS.items())


def _who(actor: str) -> str:
    return shorten(actor, NAME_MAX)


def _value(value: object) -> str:
    return shorten(str(value), VALUE_MAX)


def _names(names: list[str]) -> str:
    listed = [shorten(name, NAME_MAX) for name in names[:NAMES_LISTED]]
    rest = len(names) - len(listed)
    if rest > 0:
        return f"{', '.join(listed)} and {rest} more"
    return _listed(listed)


def _listed(words: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"

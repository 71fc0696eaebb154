"""The create/edit form of a bug or task, its choices read from the channel's fields and members."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

from bot.directory.schemas import UserOut
from bot.fields.schemas import StatusOut
from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ItemKind
from cards.item import NAME_MAX, status_choices
from cards.layout import (
    NO_INPUTS,
    Card,
    Element,
    Problem,
    choice,
    choice_set,
    envelope,
    execute,
    heading,
    largest_fitting,
    shorten,
    submit,
    subtle,
    with_problem,
)
from cards.verbs import FormTarget, ItemAction, Verb

TITLE_MAX = 255  # as the API's item name
TITLE_REQUIRED = "A title is required"
TYPED_MAX = 40
# The form's inputs by the API's name of the field each sets, where the two differ.
INPUTS = {"name": "title", "body": "description", "assignedTo": "assignees"}
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
Value = TypeVar("Value")
# A longer description is not offered for editing here: the form would cut it on save.
DESCRIPTION_MAX = 2000


@dataclass(frozen=True)
class ChannelChoices:
    """What a form offers: the channel's values of one kind's fields, and its members."""

    statuses: Sequence[StatusOut]
    priorities: Sequence[str]
    severities: Sequence[str]
    members: Sequence[UserOut]


@dataclass(frozen=True)
class Prefill:
    """Values the form starts with instead of the item's (or, for a new item, instead of
    nothing): a new item's text from the message it is created from, or what the user typed
    when the form comes back with a problem. None: not given."""

    title: str | None = None
    description: str | None = None
    status: str | None = None
    priority: str | None = None
    severity: str | None = None
    assignees: Sequence[str] | None = None  # user _ids
    start_date: str | None = None  # as typed: shown again only if it is a date
    due_date: str | None = None  # as typed: shown again only if it is a date

    @classmethod
    def typed(cls, inputs: Mapping[str, Any]) -> "Prefill":
        """What a submit of this form carried, by input id; a value that is no text (no
        client sends one) is left out."""

        def given(key: str) -> str | None:
            value = inputs.get(key)
            return value if isinstance(value, str) else None

        assignees = given("assignees")
        return cls(
            title=given("title"),
            description=given("description"),
            status=given("status"),
            priority=given("priority"),
            severity=given("severity"),
            assignees=[part for part in assignees.split(",") if part] if assignees else None,
            start_date=given("startDate"),
            due_date=given("dueDate"),
        )


def member_choices(members: Sequence[UserOut]) -> list[Element]:
    return [choice(shorten(user.display_name, NAME_MAX), user.id) for user in members]


def first_members(members: Sequence[UserOut], keep: Sequence[str]) -> list[UserOut]:
    """The members whose `_id` is in `keep` first, so a cut for size never drops them."""
    return sorted(members, key=lambda user: user.id not in keep)


def with_assignees(members: Sequence[UserOut], item: TaskDetails | None) -> list[UserOut]:
    """The team's members, then the item's assignees who are not among them (any more), so the
    form shows everyone assigned and saving it keeps them."""
    listed = {user.id for user in members}
    others = [user for user in item.assigned_to if user.id not in listed] if item else []
    return [*members, *others]


def members_note(shown: int, total: int) -> Element | None:
    if total == 0:  # no input to assign with: an empty choice set is no input
        return subtle("No team members to assign yet.", wrap=True, size="small")
    if shown >= total:
        return None
    note = f"{shown} of {total} members listed; assign others in a chat command."
    return subtle(note, wrap=True, size="small")


def _named_choice(
    input_id: str, label: str, names: Sequence[str], value: str | None
) -> Element | None:
    """A choice among the channel's names of a field; None when it has none (the default
    applies)."""
    if not names:
        return None
    return choice_set(
        input_id,
        label,
        [choice(name, name) for name in names],
        value=value if value in names else None,
        placeholder="Channel default",
    )


def item_form(
    kind: ItemKind,
    *,
    channel_id: str,
    choices: ChannelChoices,
    item: TaskDetails | None = None,
    prefill: Prefill | None = None,
    in_dialog: bool = False,
    problem: Problem | None = None,
) -> Card:
    """The form to create an item or edit `item`, `prefill` overriding their values; `problem`
    (by an input id or a field's API name) shows beside its input.

    In a dialog (the messaging extension's task module) the submit is an Action.Submit, since
    Teams closes dialogs only on that; elsewhere it is an Action.Execute replacing the card.
    """
    start = prefill or Prefill()
    title = _first(start.title, item.name if item else "")
    description = _first(start.description, item.body if item else None) or ""
    assigned = list(_first(start.assignees, [user.id for user in item.assigned_to] if item else []))
    members = first_members(with_assignees(choices.members, item), assigned)
    begins = _first(
        start.start_date, item.start_date.date().isoformat() if item and item.start_date else None
    )
    due = _first(
        start.due_date, item.due_date.date().isoformat() if item and item.due_date else None
    )
    problem = _on_input(problem, {"startDate": start.start_date, "dueDate": start.due_date})
    save = FormTarget(
        verb=Verb.SAVE_ITEM,
        kind=kind,
        channel_id=channel_id,
        item_id=item.id if item else None,
        number=item.internal_id if item else None,
    )
    label = f"Save {kind.value}" if item else f"Create {kind.value}"
    actions = [submit(label, save) if in_dialog else execute(label, save)]
    if item and not in_dialog:
        back = ItemAction(
            verb=Verb.SHOW_ITEM,
            kind=kind,
            item_id=item.id,
            channel_id=channel_id,
            number=item.internal_id,
        )
        actions.append(execute("Cancel", back, associatedInputs=NO_INPUTS))

    def build(member_count: int) -> Card:
        body = [
            heading(f"Edit {kind.value} #{item.internal_id}" if item else f"New {kind.value}"),
            _input_text(
                "title",
                "Title",
                shorten(title, TITLE_MAX),
                maxLength=TITLE_MAX,
                isRequired=True,
                errorMessage=TITLE_REQUIRED,
            ),
        ]
        if len(description) <= DESCRIPTION_MAX:
            body.append(_input_text("description", "Description", description, isMultiline=True))
        # A field without values to choose has no input: an empty choice set is none.
        statuses = status_choices(choices.statuses, kind)
        if statuses:
            status = _status_value(choices.statuses, kind, item, typed=start.status)
            body.append(choice_set("status", "Status", statuses, value=status))
        priority = _first(start.priority, item.priority if item else None)
        named = [_named_choice("priority", "Priority", choices.priorities, priority)]
        if kind is ItemKind.BUG:
            severity = _first(
                start.severity, item.severity if isinstance(item, BugDetails) else None
            )
            named.append(_named_choice("severity", "Severity", choices.severities, severity))
        body.extend(element for element in named if element)
        people = member_choices(members[:member_count])
        if people:
            body.append(
                choice_set(
                    "assignees",
                    "Assigned to",
                    people,
                    value=",".join(assigned) or None,
                    isMultiSelect=True,
                    placeholder="Nobody",
                )
            )
        note = members_note(member_count, len(members))
        if note:
            body.append(note)
        body.append(_date_input("startDate", "Start date", begins))
        body.append(_date_input("dueDate", "Due date", due))
        return envelope(with_problem(body, problem), actions)

    return largest_fitting(build, len(members))


def _date_input(input_id: str, label: str, value: str | None) -> Element:
    """A date input showing `value` if it is a date (what was typed otherwise is quoted in the
    problem beside it)."""
    element: Element = {"type": "Input.Date", "id": input_id, "label": label}
    if value and _is_date(value):
        element["value"] = value
    return element


def _input_text(input_id: str, label: str, value: str, **options: Any) -> Element:
    """An Input.Text, starting empty when `value` is."""
    element: Element = {"type": "Input.Text", "id": input_id, "label": label, **options}
    if value:
        element["value"] = value
    return element


def _status_value(
    statuses: Sequence[StatusOut], kind: ItemKind, item: TaskDetails | None, *, typed: str | None
) -> str | None:
    """The status typed, when it is one; else the item's when editing, else the kind's primary
    status."""
    own = [s.name for s in statuses if s.type == kind.type_label]
    if typed is not None:
        return typed if typed in own else None
    if item:
        return item.status if item.status in own else None
    return next((s.name for s in statuses if s.type == kind.type_label and s.primary), None)


def _first(given: Value | None, otherwise: Value) -> Value:
    """What was given, else the other value."""
    return otherwise if given is None else given


def _is_date(text: str) -> bool:
    """A day as the date input holds it (YYYY-MM-DD), and one the calendar has."""
    try:
        return bool(_DATE.fullmatch(text)) and date.fromisoformat(text) is not None
    except ValueError:
        return False


def _on_input(problem: Problem | None, typed_dates: Mapping[str, str | None]) -> Problem | None:
    """The problem beside its input, named by the field's API name or the input's id; a date
    the date input cannot show again is quoted, so what was typed is not lost."""
    if problem is None:
        return None
    field = INPUTS.get(problem.field or "", problem.field)
    message = problem.message
    typed = typed_dates.get(field or "")
    if typed and not _is_date(typed):
        message = f"“{shorten(typed, TYPED_MAX)}”: {message}"
    return Problem(message, field)

"""The create/edit form of a bug or task, its choices read from the channel's fields and members."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.directory.schemas import UserOut
from bot.fields.schemas import StatusOut
from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ItemKind
from cards.item import NAME_MAX, status_choices
from cards.layout import (
    NO_INPUTS,
    Card,
    Element,
    choice,
    choice_set,
    envelope,
    execute,
    heading,
    largest_fitting,
    shorten,
    submit,
    subtle,
)
from cards.verbs import FormTarget, ItemAction, Verb

TITLE_MAX = 255  # as the API's item name
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
    """A new item's starting text, e.g. from the message it is created from."""

    title: str = ""
    description: str = ""


def member_choices(members: Sequence[UserOut]) -> list[Element]:
    return [choice(shorten(user.display_name, NAME_MAX), user.id) for user in members]


def first_members(members: Sequence[UserOut], keep: Sequence[str]) -> list[UserOut]:
    """The members whose `_id` is in `keep` first, so a cut for size never drops them."""
    return sorted(members, key=lambda user: user.id not in keep)


def members_note(shown: int, total: int) -> Element | None:
    if shown >= total:
        return None
    note = f"{shown} of {total} members listed; assign others in a chat command."
    return subtle(note, wrap=True, size="small")


def _named_choice(input_id: str, label: str, names: Sequence[str], value: str | None) -> Element:
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
) -> Card:
    """The form to create an item (prefilled from `prefill`) or edit `item`.

    In a dialog (the messaging extension's task module) the submit is an Action.Submit, since
    Teams closes dialogs only on that; elsewhere it is an Action.Execute replacing the card.
    """
    start = prefill or Prefill()
    title = item.name if item else start.title
    description = (item.body if item else start.description) or ""
    assigned = [user.id for user in item.assigned_to] if item else []
    members = first_members(choices.members, assigned)
    save = FormTarget(
        verb=Verb.SAVE_ITEM, kind=kind, channel_id=channel_id, item_id=item.id if item else None
    )
    label = f"Save {kind.value}" if item else f"Create {kind.value}"
    actions = [submit(label, save) if in_dialog else execute(label, save)]
    if item and not in_dialog:
        back = ItemAction(verb=Verb.SHOW_ITEM, kind=kind, item_id=item.id, channel_id=channel_id)
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
                errorMessage="A title is required",
            ),
        ]
        if len(description) <= DESCRIPTION_MAX:
            body.append(_input_text("description", "Description", description, isMultiline=True))
        body.append(
            choice_set(
                "status",
                "Status",
                status_choices(choices.statuses, kind),
                value=_status_value(choices.statuses, kind, item),
            )
        )
        body.append(
            _named_choice(
                "priority", "Priority", choices.priorities, item.priority if item else None
            )
        )
        if kind is ItemKind.BUG:
            severity = item.severity if isinstance(item, BugDetails) else None
            body.append(_named_choice("severity", "Severity", choices.severities, severity))
        body.append(
            choice_set(
                "assignees",
                "Assigned to",
                member_choices(members[:member_count]),
                value=",".join(assigned) or None,
                isMultiSelect=True,
                placeholder="Nobody",
            )
        )
        note = members_note(member_count, len(members))
        if note:
            body.append(note)
        due: Element = {"type": "Input.Date", "id": "dueDate", "label": "Due date"}
        if item and item.due_date:
            due["value"] = item.due_date.date().isoformat()
        body.append(due)
        return envelope(body, actions)

    return largest_fitting(build, len(members))


def _input_text(input_id: str, label: str, value: str, **options: Any) -> Element:
    """An Input.Text, starting empty when `value` is."""
    element: Element = {"type": "Input.Text", "id": input_id, "label": label, **options}
    if value:
        element["value"] = value
    return element


def _status_value(
    statuses: Sequence[StatusOut], kind: ItemKind, item: TaskDetails | None
) -> str | None:
    """The item's status when editing, else the kind's primary status."""
    own = [s.name for s in statuses if s.type == kind.type_label]
    if item:
        return item.status if item.status in own else None
    return next((s.name for s in statuses if s.type == kind.type_label and s.primary), None)

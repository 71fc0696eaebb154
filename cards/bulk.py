"""The bulk-edit form for the rows selected on a list card (status, priority, and who replaces
the assignees, as the API's bulk edit does), and the line saying what it changed."""

from collections.abc import Mapping, Sequence
from typing import Any

from bot.schemas import ItemKind
from cards.form import ChannelChoices, first_members, member_choices, members_note
from cards.item import status_choices
from cards.layout import (
    Card,
    Element,
    Problem,
    choice,
    choice_set,
    envelope,
    execute,
    heading,
    largest_fitting,
    with_problem,
)
from cards.verbs import BulkTarget, Verb

UNCHANGED = "Unchanged"
# The API's bulk edit replaces the assignees (`assign … to` adds one): the label says so.
REPLACE_ASSIGNEES = "Replace assignees with"
NUMBERS_SHOWN = 10  # items named in the line; the list below shows them all
# The form's inputs by the API's name of the field each sets, where the two differ.
INPUTS = {"assignedTo": "assignee"}


def bulk_form(
    kind: ItemKind,
    *,
    channel_id: str,
    ids: Sequence[str],
    choices: ChannelChoices,
    typed: Mapping[str, Any] | None = None,
    problem: Problem | None = None,
) -> Card:
    """Every input starts empty (or as `typed` when the form comes back with a `problem`,
    shown beside its input): only the fields given change, on every selected item."""
    target = BulkTarget(verb=Verb.APPLY_BULK_EDIT, kind=kind, channel_id=channel_id, ids=list(ids))
    members = first_members(choices.members, [])
    count = len(target.ids)
    noun = kind.value if count == 1 else kind.plural
    if problem is not None:
        problem = Problem(problem.message, INPUTS.get(problem.field or "", problem.field))
    given = typed or {}

    def chosen(input_id: str, offered: list[Element]) -> str | None:
        value = given.get(input_id)
        return value if value in [option["value"] for option in offered] else None

    def build(member_count: int) -> Card:
        statuses = status_choices(choices.statuses, kind)
        priorities = [choice(name, name) for name in choices.priorities]
        people = member_choices(members[:member_count])
        fields = [
            ("status", "Status", statuses),
            ("priority", "Priority", priorities),
            ("assignee", REPLACE_ASSIGNEES, people),
        ]
        body = [heading(f"Edit {count} {noun}")]
        # A field without values to choose has no input: an empty choice set is none.
        body += [
            choice_set(key, label, options, placeholder=UNCHANGED, value=chosen(key, options))
            for key, label, options in fields
            if options
        ]
        note = members_note(member_count, len(members))
        if note:
            body.append(note)
        return envelope(with_problem(body, problem), [execute(f"Apply to {count} {noun}", target)])

    return largest_fitting(build, len(members))


def bulk_outcome(
    kind: ItemKind,
    *,
    updated: Sequence[int],
    asked: int,
    status: str | None = None,
    priority: str | None = None,
    assignee: str | None = None,
) -> str:
    """ "2 of 2 bugs updated: status set to Done, assignees set to Grace Hopper on #3, #5": the
    count, then each field set and the numbers of the items updated."""
    line = f"{len(updated)} of {asked} {kind.plural} updated"
    given = [("status", status), ("priority", priority), ("assignees", assignee)]
    changes = [f"{field} set to {value}" for field, value in given if value]
    if not updated or not changes:
        return line
    numbers = ", ".join(f"#{number}" for number in sorted(updated)[:NUMBERS_SHOWN])
    if len(updated) > NUMBERS_SHOWN:
        numbers += f" and {len(updated) - NUMBERS_SHOWN} more"
    return f"{line}: {', '.join(changes)} on {numbers}"

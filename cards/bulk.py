"""The bulk-edit form for the rows selected on a list card: status, priority and assignee."""

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
            ("assignee", "Assign to", people),
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

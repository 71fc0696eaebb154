"""The bulk-edit form for the rows selected on a list card: status, priority and assignee."""

from collections.abc import Sequence

from bot.schemas import ItemKind
from cards.form import ChannelChoices, first_members, member_choices, members_note
from cards.item import status_choices
from cards.layout import Card, choice, choice_set, envelope, execute, heading, largest_fitting
from cards.verbs import BulkTarget, Verb

UNCHANGED = "Unchanged"


def bulk_form(
    kind: ItemKind, *, channel_id: str, ids: Sequence[str], choices: ChannelChoices
) -> Card:
    """Every input starts empty: only the fields given change, on every selected item."""
    target = BulkTarget(verb=Verb.APPLY_BULK_EDIT, kind=kind, channel_id=channel_id, ids=list(ids))
    members = first_members(choices.members, [])
    count = len(target.ids)
    noun = kind.value if count == 1 else kind.plural

    def build(member_count: int) -> Card:
        body = [
            heading(f"Edit {count} {noun}"),
            choice_set(
                "status",
                "Status",
                status_choices(choices.statuses, kind),
                placeholder=UNCHANGED,
            ),
            choice_set(
                "priority",
                "Priority",
                [choice(name, name) for name in choices.priorities],
                placeholder=UNCHANGED,
            ),
            choice_set(
                "assignee",
                "Assign to",
                member_choices(members[:member_count]),
                placeholder=UNCHANGED,
            ),
        ]
        note = members_note(member_count, len(members))
        if note:
            body.append(note)
        return envelope(body, [execute(f"Apply to {count} {noun}", target)])

    return largest_fitting(build, len(members))

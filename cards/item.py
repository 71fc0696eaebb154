"""The item card: one bug or task, its facts, and buttons to change its status, take it, edit it."""

from collections.abc import Sequence

from bot.fields.schemas import StatusOut
from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ItemKind
from cards.layout import (
    NO_INPUTS,
    Card,
    Element,
    choice,
    choice_set,
    envelope,
    execute,
    plain,
    shorten,
    subtle,
)
from cards.verbs import ItemAction, Verb

NOBODY = "Nobody"
NO_DATE = "No due date"
NO_SEVERITY = "Not set"
NAMES_SHOWN = 3
NAME_MAX = 40
STATUS_INPUT = "status"


def kind_of(item: TaskDetails) -> ItemKind:
    return ItemKind.BUG if isinstance(item, BugDetails) else ItemKind.TASK


def item_action(item: TaskDetails, verb: Verb) -> ItemAction:
    """The data a button on this item carries."""
    return ItemAction(verb=verb, kind=kind_of(item), item_id=item.id, channel_id=item.channel_id)


def facts(item: TaskDetails) -> list[tuple[str, str]]:
    """What the card states about the item, as (label, value) in display order."""
    rows = [("ID", f"#{item.internal_id}"), ("Status", item.status), ("Priority", item.priority)]
    if isinstance(item, BugDetails):
        rows.append(("Severity", item.severity or NO_SEVERITY))
    rows.append(("Assigned to", assignee_names([user.display_name for user in item.assigned_to])))
    rows.append(("Due", item.due_date.date().isoformat() if item.due_date else NO_DATE))
    return rows


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
    own = sorted((s for s in statuses if s.type == kind.type_label), key=lambda s: s.order)
    return [choice(status.name, status.name) for status in own]


def item_card(
    item: TaskDetails, *, statuses: Sequence[StatusOut], discussion_url: str | None = None
) -> Card:
    """A bug or task as the channel sees it after any change; with `discussion_url`, a link to
    its thread where the Discuss button was."""
    kind = kind_of(item)
    choices = status_choices(statuses, kind)
    current = next((c["value"] for c in choices if c["value"] == item.status), None)
    body = [
        subtle(f"{kind.type_label} #{item.internal_id}", spacing="none"),
        plain(item.name, spacing="small"),
        {
            "type": "FactSet",
            "facts": [{"title": label, "value": value} for label, value in facts(item)],
        },
        choice_set(
            STATUS_INPUT,
            "Change status",
            choices,
            value=current,
            isRequired=True,
            errorMessage="Choose a status",
        ),
    ]
    discuss = (
        {"type": "Action.OpenUrl", "title": "Open discussion", "url": discussion_url}
        if discussion_url
        else execute("Discuss", item_action(item, Verb.DISCUSS), associatedInputs=NO_INPUTS)
    )
    actions = [
        execute("Set status", item_action(item, Verb.SET_STATUS)),
        # These two ignore the status input, so an item whose status is gone can still change.
        execute("Assign to me", item_action(item, Verb.ASSIGN_TO_ME), associatedInputs=NO_INPUTS),
        execute("Edit", item_action(item, Verb.EDIT_ITEM), associatedInputs=NO_INPUTS),
        discuss,
    ]
    card = envelope(body, actions)
    # Teams asks for the card again whenever someone sees it, so a stale copy shows the item
    # as it is now, whoever changed it since (Universal Actions' refresh).
    card["refresh"] = {"action": execute(None, item_action(item, Verb.SHOW_ITEM))}
    return card

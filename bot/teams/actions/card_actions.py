"""Card actions (Action.Execute): one dispatcher from a verb to its data models and functions.
Each changes the database through the services and returns the card that replaces the clicked
one; a refusal comes back on that card again, beside what caused it, never stranding the user.
"""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bot.db.uow import UnitOfWork
from bot.errors import BadRequest, DomainError, ItemNotFound
from bot.items import bulk, read
from bot.items import service as items
from bot.items.schemas import CREATE, BulkEdit, TaskDetails
from bot.schemas import ApiModel, ItemKind
from bot.teams.commands import (
    card_data,
    delete_commands,
    dispatch,
    grammar,
    list_commands,
    settings_commands,
)
from bot.teams.commands.assign_commands import joining
from bot.teams.commands.card_data import Change
from bot.teams.commands.item_commands import discussion_view, patch_of, typed_in
from bot.teams.context import BotContext
from bot.teams.problems import problem_of
from cards import verbs
from cards.bulk import bulk_form, bulk_outcome
from cards.form import Prefill, item_form
from cards.help import error_card
from cards.layout import Card, Element, Problem, execute
from cards.listing import ItemList, list_card
from cards.verbs import Verb

NOTHING_SELECTED = "Select at least one row, then choose “Bulk edit selected”."
TOO_MANY_SELECTED = f"Select at most {verbs.MAX_SELECTED} rows at once."
STALE_CARD = "This card is out of date: run the command again."

Act = Callable[[BotContext, Any, Mapping[str, Any]], Awaitable[Card]]
Again = Callable[[BotContext, Any, Mapping[str, Any], Problem], Awaitable[Card]]


@dataclass(frozen=True)
class Action:
    """How a verb is answered. `target` is what its button carries: data that does not fit was
    changed, or comes from a card older than the app. `given` is the target with what the user
    typed, which may be wrong; `again` shows the clicked card again with the problem beside
    its cause."""

    target: type[ApiModel]
    act: Act
    given: type[ApiModel] | None = None  # None: the inputs are the target's own
    again: Again | None = None


async def run_action(ctx: BotContext, verb: str, data: Mapping[str, Any]) -> Card:
    """The card that replaces the clicked one after the verb's change, or the clicked card again
    with what went wrong."""
    sent = {**data, "verb": verb}
    try:
        action = ACTIONS[Verb(verb)]
        target = action.target.model_validate(sent)
    except ValueError:  # an unknown verb, or data that does not fit it (ValidationError)
        raise BadRequest(STALE_CARD) from None
    try:
        given = action.given.model_validate(sent) if action.given else target
        return await action.act(ctx, given, data)
    except (DomainError, ValidationError) as exc:
        problem = _deleted(target, exc) or problem_of(exc)
    if action.again is not None:
        try:
            return await action.again(ctx, target, data, problem)
        except DomainError:  # its item is gone, or its channel closed to the caller
            pass
    return error_card(problem.message, _way_on(target))


def _deleted(target: ApiModel, exc: Exception) -> Problem | None:
    """A button of an item deleted since its card was sent: which one, by the number the
    button carries (data without it is an older card's, or altered: its refusal stands)."""
    number = getattr(target, "number", None)
    if not isinstance(exc, ItemNotFound) or not isinstance(target, verbs.ActionData) or not number:
        return None
    if exc.item_id != getattr(target, "item_id", None):
        return None
    return Problem(f"{target.kind.type_label} #{number} was deleted.")


def _way_on(target: ApiModel) -> list[Element]:
    """Where to go from a card that cannot be shown again: its kind's list in its channel."""
    channel_id = getattr(target, "channel_id", None)
    if not isinstance(target, verbs.ActionData) or not channel_id:
        return [execute("Help", verbs.RunCommand(verb=Verb.RUN_COMMAND, command="help"))]
    kind = target.kind
    show = verbs.More(verb=Verb.MORE, kind=kind, channel_id=channel_id, command=kind.plural, skip=0)
    return [execute(kind.plural.capitalize(), show)]


async def _show(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        return await card_data.item_view(
            uow, kind=data.kind, item_id=data.item_id, public_url=ctx.public_url
        )


async def _item_again(
    ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any], problem: Problem
) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        return await card_data.item_view(
            uow, kind=data.kind, item_id=data.item_id, problem=problem, public_url=ctx.public_url
        )


async def _changed(ctx: BotContext, data: verbs.ItemAction, change: Change) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work() as uow:
        return await card_data.changed_view(
            uow, kind=data.kind, item_id=data.item_id, change=change, public_url=ctx.public_url
        )


async def _set_status(ctx: BotContext, data: verbs.SetStatus, _raw: Mapping[str, Any]) -> Card:
    async def change(uow: UnitOfWork, before: TaskDetails) -> None:
        patch = patch_of(data.kind, status=data.status)
        await items.update_item(uow, kind=data.kind, item_id=before.id, patch=patch)

    return await _changed(ctx, data, change)


async def _assign_to_me(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    """The caller joins the item's assignees (nobody else is taken off it), as `assign … to me`."""
    actor = ctx.actor
    return await _changed(ctx, data, joining(data.kind, actor.user_id, actor.display_name))


async def _discuss(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    return await discussion_view(ctx, data.kind, data.item_id)


async def _edit(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        item = await card_data.details(uow, kind=data.kind, item_id=data.item_id)
        choices = await card_data.choices(uow, kind=data.kind)
    return item_form(data.kind, channel_id=data.channel_id, choices=choices, item=item)


def form_fields(data: verbs.SaveItem) -> dict[str, Any]:
    """The form's inputs as item fields: an empty one is left out (unchanged, or the default),
    except the assignees, which the edit form shows and so may clear."""
    given: dict[str, Any] = {
        "name": data.title,
        "body": data.description,
        "status": data.status,
        "priority": data.priority,
        "startDate": data.start_date,
        "dueDate": data.due_date,
    }
    if data.kind is ItemKind.BUG:
        given["severity"] = data.severity
    fields = {key: value for key, value in given.items() if value is not None}
    fields["assignedTo"] = data.assignees
    return fields


@dataclass(frozen=True, slots=True)
class CreatedItem:
    number: int  # in its channel: "#12"
    title: str
    card: Card  # the item card saying it was created


async def create_from_form(ctx: BotContext, data: verbs.SaveItem) -> CreatedItem:
    """Create the item the form describes (it names no itemId)."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    kind = data.kind
    async with ctx.work() as uow:
        body = typed_in(CREATE[kind], form_fields(data))
        created = await items.create_item(uow, kind=kind, body=body, entity_id=None)
        card = await card_data.created_view(
            uow, kind=kind, item_id=str(created.row["id"]), public_url=ctx.public_url
        )
    return CreatedItem(int(created.row["internal_id"]), str(created.row["name"]), card)


async def save_form(ctx: BotContext, data: verbs.SaveItem) -> Card:
    """Create the item (no itemId) or apply the edit; the item card saying what was done."""
    if data.item_id is None:
        return (await create_from_form(ctx, data)).card
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    kind, fields = data.kind, form_fields(data)
    async with ctx.work() as uow:

        async def change(uow: UnitOfWork, before: TaskDetails) -> None:
            patch = patch_of(kind, **fields)
            await items.update_item(uow, kind=kind, item_id=before.id, patch=patch)

        return await card_data.changed_view(
            uow, kind=kind, item_id=data.item_id, change=change, public_url=ctx.public_url
        )


async def _save(ctx: BotContext, data: verbs.SaveItem, _raw: Mapping[str, Any]) -> Card:
    return await save_form(ctx, data)


async def form_again(
    ctx: BotContext,
    target: verbs.FormTarget,
    raw: Mapping[str, Any],
    problem: Problem,
    *,
    in_dialog: bool = False,
) -> Card:
    """The form as the user filled it, the problem beside its input (in a dialog too: the
    messaging extension's keeps the dialog open with it)."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=target.channel_id)
    kind = target.kind
    async with ctx.work(write=False) as uow:
        choices = await card_data.choices(uow, kind=kind)
        item = (
            await card_data.details(uow, kind=kind, item_id=target.item_id)
            if target.item_id
            else None
        )
    return item_form(
        kind,
        channel_id=target.channel_id,
        choices=choices,
        item=item,
        prefill=Prefill.typed(raw),
        in_dialog=in_dialog,
        problem=problem,
    )


async def _more(ctx: BotContext, data: verbs.More, _raw: Mapping[str, Any]) -> Card:
    if data.channel_id:
        ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    return await dispatch.answer(ctx, data.command, skip=data.skip)


async def _bulk_edit(ctx: BotContext, data: verbs.BulkEdit, raw: Mapping[str, Any]) -> Card:
    ids = verbs.selected_ids(raw)
    if not ids:
        raise BadRequest(NOTHING_SELECTED)
    if len(ids) > verbs.MAX_SELECTED:
        raise BadRequest(TOO_MANY_SELECTED)
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        choices = await card_data.choices(uow, kind=data.kind)
    return bulk_form(data.kind, channel_id=data.channel_id, ids=ids, choices=choices)


async def _list_again(
    ctx: BotContext, target: verbs.BulkEdit, _raw: Mapping[str, Any], problem: Problem
) -> Card:
    """The list the bulk edit was asked from, the problem above its buttons."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=target.channel_id)
    text = target.command or target.kind.plural
    command = grammar.parse(text)
    if not isinstance(command, grammar.ListItems):
        raise BadRequest(STALE_CARD)
    return await list_commands.list_card_for(
        ctx, command, text=text, skip=target.skip, problem=problem
    )


async def _apply_bulk_edit(
    ctx: BotContext, data: verbs.ApplyBulkEdit, _raw: Mapping[str, Any]
) -> Card:
    """The API's bulk edit (docs/api.md); the answer lists the items edited as they now stand."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    assert ctx.channel is not None
    edit = typed_in(
        BulkEdit,
        {
            "ids": data.ids,
            "status": data.status,
            "priority": data.priority,
            "assignedTo": [data.assignee] if data.assignee else [],
        },
    )
    async with ctx.work() as uow:
        results = await bulk.bulk_edit(uow, kind=data.kind, edit=edit)
        done = [result.id for result in results if result.status == bulk.SUCCESS]
        rows = await read.get_many(uow, kind=data.kind, item_ids=done)
    chosen = [user for row in rows for user in row["assignedTo"] if user["_id"] == data.assignee]
    title = bulk_outcome(
        data.kind,
        updated=[row["internalId"] for row in rows],
        asked=len(results),
        status=data.status,
        priority=data.priority,
        assignee=chosen[0]["displayName"] if chosen else None,
    )
    noun = data.kind.plural
    page = ItemList(
        title=title,
        kind=data.kind,
        items=[card_data.list_row(row) for row in rows],
        command=noun,
        channel_id=data.channel_id,
        now=ctx.clock.now(),
    )
    return list_card(page)


async def _bulk_again(
    ctx: BotContext, target: verbs.BulkTarget, raw: Mapping[str, Any], problem: Problem
) -> Card:
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=target.channel_id)
    async with ctx.work(write=False) as uow:
        choices = await card_data.choices(uow, kind=target.kind)
    return bulk_form(
        target.kind,
        channel_id=target.channel_id,
        ids=target.ids,
        choices=choices,
        typed=raw,
        problem=problem,
    )


async def _run_command(ctx: BotContext, data: verbs.RunCommand, _raw: Mapping[str, Any]) -> Card:
    if data.channel_id:
        ctx = await card_data.in_channel(ctx, team_id=data.team_id, channel_id=data.channel_id)
    return await dispatch.answer(ctx, data.command)


ACTIONS: dict[Verb, Action] = {
    Verb.SHOW_ITEM: Action(verbs.ItemAction, _show),
    Verb.SET_STATUS: Action(verbs.ItemAction, _set_status, verbs.SetStatus, _item_again),
    Verb.ASSIGN_TO_ME: Action(verbs.ItemAction, _assign_to_me, again=_item_again),
    Verb.EDIT_ITEM: Action(verbs.ItemAction, _edit, again=_item_again),
    Verb.DISCUSS: Action(verbs.ItemAction, _discuss, again=_item_again),
    Verb.DELETE_ITEM: Action(verbs.DeleteItem, delete_commands.confirm),
    Verb.SAVE_ITEM: Action(verbs.FormTarget, _save, verbs.SaveItem, form_again),
    Verb.MORE: Action(verbs.More, _more),
    Verb.BULK_EDIT: Action(verbs.BulkEdit, _bulk_edit, again=_list_again),
    Verb.APPLY_BULK_EDIT: Action(
        verbs.BulkTarget, _apply_bulk_edit, verbs.ApplyBulkEdit, _bulk_again
    ),
    Verb.RUN_COMMAND: Action(verbs.RunCommand, _run_command),
    Verb.SWITCH_RULE: Action(verbs.SwitchRule, settings_commands.switch_rule),
    Verb.SAVE_SETTINGS: Action(verbs.SaveSettings, settings_commands.save),
}

"""Card actions (Action.Execute): one dispatcher from a verb to its data model and its function.
Each changes the database through the services and returns the card that replaces the clicked one.
"""

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from pydantic import ValidationError

from bot.errors import BadRequest
from bot.items import bulk, read
from bot.items import service as items
from bot.items.schemas import CREATE, BulkEdit
from bot.schemas import ApiModel, ItemKind
from bot.teams import commands, settings_commands, views
from bot.teams.context import BotContext
from bot.teams.item_commands import discussion_view, patch_of, typed_in
from cards import verbs
from cards.bulk import bulk_form
from cards.form import item_form
from cards.layout import Card
from cards.listing import ItemList, list_card
from cards.verbs import Verb

NOTHING_SELECTED = "Select at least one row, then choose “Bulk edit selected”."
STALE_CARD = "This card is out of date: run the command again."

Act = Callable[[BotContext, Any, Mapping[str, Any]], Awaitable[Card]]


async def run_action(ctx: BotContext, verb: str, data: Mapping[str, Any]) -> Card:
    """The card that replaces the clicked one after the verb's change."""
    try:
        model, act = ACTIONS[Verb(verb)]
        parsed = model.model_validate({**data, "verb": verb})
    except (ValueError, ValidationError):
        raise BadRequest(STALE_CARD) from None
    return await act(ctx, parsed, data)


async def _change_item(ctx: BotContext, data: verbs.ItemAction, **fields: Any) -> Card:
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=bool(fields)) as uow:
        if fields:
            patch = patch_of(data.kind, **fields)
            await items.update_item(uow, kind=data.kind, item_id=data.item_id, patch=patch)
        return await views.item_view(uow, kind=data.kind, item_id=data.item_id)


async def _show(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    return await _change_item(ctx, data)


async def _set_status(ctx: BotContext, data: verbs.SetStatus, _raw: Mapping[str, Any]) -> Card:
    return await _change_item(ctx, data, status=data.status)


async def _assign_to_me(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    return await _change_item(ctx, data, assignedTo=[ctx.actor.user_id])


async def _discuss(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    return await discussion_view(ctx, data.kind, data.item_id)


async def _edit(ctx: BotContext, data: verbs.ItemAction, _raw: Mapping[str, Any]) -> Card:
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        row = await read.get_details(uow, kind=data.kind, item_id=data.item_id)
        choices = await views.choices(uow, kind=data.kind)
    item = views.details_model(data.kind, row)
    return item_form(data.kind, channel_id=data.channel_id, choices=choices, item=item)


def form_fields(data: verbs.SaveItem) -> dict[str, Any]:
    """The form's inputs as item fields: an empty one is left out (unchanged, or the default),
    except the assignees, which the edit form shows and so may clear."""
    given: dict[str, Any] = {
        "name": data.title,
        "body": data.description,
        "status": data.status,
        "priority": data.priority,
        "dueDate": data.due_date,
    }
    if data.kind is ItemKind.BUG:
        given["severity"] = data.severity
    fields = {key: value for key, value in given.items() if value is not None}
    fields["assignedTo"] = data.assignees
    return fields


async def save_form(ctx: BotContext, data: verbs.SaveItem) -> Card:
    """Create the item (no itemId) or apply the edit; the item card as it now stands."""
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    fields = form_fields(data)
    async with ctx.work() as uow:
        if data.item_id is None:
            created = await items.create_item(
                uow, kind=data.kind, body=typed_in(CREATE[data.kind], fields), entity_id=None
            )
            item_id = str(created.row["id"])
        else:
            item_id = data.item_id
            patch = patch_of(data.kind, **fields)
            await items.update_item(uow, kind=data.kind, item_id=item_id, patch=patch)
        return await views.item_view(uow, kind=data.kind, item_id=item_id)


async def _save(ctx: BotContext, data: verbs.SaveItem, _raw: Mapping[str, Any]) -> Card:
    return await save_form(ctx, data)


async def _more(ctx: BotContext, data: verbs.More, _raw: Mapping[str, Any]) -> Card:
    if data.channel_id:
        ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    return await commands.answer(ctx, data.command, skip=data.skip)


async def _bulk_edit(ctx: BotContext, data: verbs.BulkEdit, raw: Mapping[str, Any]) -> Card:
    ids = verbs.selected_ids(raw)
    if not ids:
        raise BadRequest(NOTHING_SELECTED)
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    async with ctx.work(write=False) as uow:
        choices = await views.choices(uow, kind=data.kind)
    return bulk_form(data.kind, channel_id=data.channel_id, ids=ids, choices=choices)


async def _apply_bulk_edit(
    ctx: BotContext, data: verbs.ApplyBulkEdit, _raw: Mapping[str, Any]
) -> Card:
    """The API's bulk edit (docs/api.md); the answer lists the items edited as they now stand."""
    ctx = await views.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    assert ctx.channel is not None
    edit = BulkEdit.model_validate(
        {
            "ids": data.ids,
            "status": data.status,
            "priority": data.priority,
            "assignedTo": [data.assignee] if data.assignee else [],
        }
    )
    async with ctx.work() as uow:
        results = await bulk.bulk_edit(uow, kind=data.kind, edit=edit)
        done = [result.id for result in results if result.status == bulk.SUCCESS]
        rows = await read.get_many(uow, kind=data.kind, item_ids=done)
    noun = data.kind.plural
    page = ItemList(
        title=f"{len(done)} of {len(results)} {noun} updated",
        kind=data.kind,
        items=[views.list_row(row) for row in rows],
        command=noun,
        channel_id=data.channel_id,
    )
    return list_card(page)


async def _run_command(ctx: BotContext, data: verbs.RunCommand, _raw: Mapping[str, Any]) -> Card:
    if data.channel_id:
        ctx = await views.in_channel(ctx, team_id=data.team_id, channel_id=data.channel_id)
    return await commands.answer(ctx, data.command)


ACTIONS: dict[Verb, tuple[type[ApiModel], Act]] = {
    Verb.SHOW_ITEM: (verbs.ItemAction, _show),
    Verb.SET_STATUS: (verbs.SetStatus, _set_status),
    Verb.ASSIGN_TO_ME: (verbs.ItemAction, _assign_to_me),
    Verb.EDIT_ITEM: (verbs.ItemAction, _edit),
    Verb.DISCUSS: (verbs.ItemAction, _discuss),
    Verb.SAVE_ITEM: (verbs.SaveItem, _save),
    Verb.MORE: (verbs.More, _more),
    Verb.BULK_EDIT: (verbs.BulkEdit, _bulk_edit),
    Verb.APPLY_BULK_EDIT: (verbs.ApplyBulkEdit, _apply_bulk_edit),
    Verb.RUN_COMMAND: (verbs.RunCommand, _run_command),
    Verb.SWITCH_RULE: (verbs.SwitchRule, settings_commands.switch_rule),
    Verb.SAVE_SETTINGS: (verbs.SaveSettings, settings_commands.save),
}

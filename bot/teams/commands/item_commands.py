"""Commands on one item, or a new one: show, set status or priority, close, clone, discuss,
create (assign and unassign: assign_commands). In a chat, where numbers are per channel, the
item's channel is found first, or asked. A change answers with the item card saying what it did."""

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import ValidationError

from bot.db.uow import UnitOfWork
from bot.errors import Invalid, NotFound
from bot.items import service as items
from bot.items import shortcuts
from bot.items.schemas import CREATE, PATCH, TaskDetails, TaskPatch
from bot.schemas import ApiModel, ItemKind
from bot.teams.commands import card_data, grammar
from bot.teams.commands.card_data import Change
from bot.teams.context import BotContext
from bot.teams.problems import validation_problem
from cards.changes import Note
from cards.choice import channel_choice
from cards.form import item_form
from cards.layout import Card

NO_CHANNEL = "You are not in any channel I work in yet: add the app to your team first."
NUL_REFUSED = "must not contain the NUL character (U+0000)"

Fields = TypeVar("Fields", bound=ApiModel)


def patch_of(kind: ItemKind, **fields: Any) -> TaskPatch:
    """The kind's PATCH body of a change a command or a card asks for."""
    return typed_in(PATCH[kind], fields)


def typed_in(model: type[Fields], fields: Mapping[str, Any]) -> Fields:
    """What a command or form gave, judged as the REST API judges a body: a refusal names the
    field, so a form can show it beside its input."""
    for name, value in fields.items():
        # PostgreSQL text cannot hold U+0000, and SQLite's could: refused on both, as the API does.
        if any("\x00" in text for text in _texts(value)):
            raise Invalid(name, NUL_REFUSED)
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        problem = validation_problem(exc)
        raise Invalid(problem.field or "body", problem.message) from None


def _texts(value: Any) -> list[str]:
    """The strings a field's value holds: itself, or a list's."""
    if isinstance(value, str):
        return [value]
    return [part for part in value if isinstance(part, str)] if isinstance(value, list) else []


async def _on_item(
    ctx: BotContext, kind: ItemKind, number: int, command: str, change: Change | None
) -> Card:
    """Apply `change` to the item numbered `number` (in a chat: in its one channel, or ask
    which), then show its card."""
    located = await channel_of_number(ctx, kind, number, command)
    if not isinstance(located, BotContext):
        return located
    return await apply_change(located, kind, number, change)


async def apply_change(ctx: BotContext, kind: ItemKind, number: int, change: Change | None) -> Card:
    """The item's card (the caller acting in its channel), after `change` if there is one."""
    async with ctx.work(write=change is not None) as uow:
        item_id = await shortcuts.item_id_by_number(uow, kind=kind, internal_id=number)
        if change is None:
            return await card_data.item_view(
                uow, kind=kind, item_id=item_id, public_url=ctx.public_url
            )
        return await card_data.changed_view(
            uow, kind=kind, item_id=item_id, change=change, public_url=ctx.public_url
        )


async def channel_of_number(
    ctx: BotContext, kind: ItemKind, number: int, command: str
) -> BotContext | Card:
    """The caller acting in the channel of the item numbered `number`: the command's own, or
    in a chat the one channel with such an item; several: a card asking which."""
    if ctx.channel is not None:
        return ctx
    async with ctx.work(write=False) as uow:
        found = await shortcuts.channels_with_number(uow, kind=kind, internal_id=number)
    if not found:
        raise NotFound(f"There is no {kind.value} #{number} in your channels.")
    if len(found) > 1:
        question = f"Several channels have a {kind.value} #{number}: which one?"
        return channel_choice(question, command=command, places=[*map(card_data.place, found)])
    return await card_data.in_channel(ctx, team_id=found[0].team_id, channel_id=found[0].channel_id)


async def show(ctx: BotContext, command: grammar.ShowItem) -> Card:
    kind, number = command.kind, command.internal_id
    return await _on_item(ctx, kind, number, f"{kind.value}/{number}", None)


async def set_status(ctx: BotContext, command: grammar.SetStatus) -> Card:
    return await _set_field(ctx, command.kind, command.internal_id, "status", command.status)


async def set_priority(ctx: BotContext, command: grammar.SetPriority) -> Card:
    return await _set_field(ctx, command.kind, command.internal_id, "priority", command.priority)


async def _set_field(ctx: BotContext, kind: ItemKind, number: int, field: str, value: str) -> Card:
    """`<kind>/update/<number>/<field>/<value>`: one field of the item changed, its card shown."""

    async def change(uow: UnitOfWork, before: TaskDetails) -> None:
        patch = patch_of(kind, **{field: value})
        await items.update_item(uow, kind=kind, item_id=before.id, patch=patch)

    text = f"{kind.value}/update/{number}/{field}/{value}"
    return await _on_item(ctx, kind, number, text, change)


async def close(ctx: BotContext, command: grammar.Close) -> Card:
    kind, number = command.kind, command.internal_id

    async def change(uow: UnitOfWork, before: TaskDetails) -> None:
        await shortcuts.close_item(uow, kind=kind, item_id=before.id)

    return await _on_item(ctx, kind, number, f"close {kind.value} {number}", change)


async def clone(ctx: BotContext, command: grammar.Clone) -> Card:
    """Copy the item; the card shown is the copy's."""
    kind, number = command.kind, command.internal_id

    async def change(uow: UnitOfWork, before: TaskDetails) -> str:
        created = await shortcuts.clone_item(uow, kind=kind, item_id=before.id)
        return str(created.row["id"])

    return await _on_item(ctx, kind, number, f"{kind.value}/clone/{number}", change)


async def discuss(ctx: BotContext, command: grammar.Discuss) -> Card:
    """Start the item's thread in its channel (or find the one it has): its card, linking there."""
    kind, number = command.kind, command.internal_id
    located = await channel_of_number(ctx, kind, number, f"discuss {kind.value} {number}")
    if not isinstance(located, BotContext):
        return located
    async with located.work(write=False) as uow:
        item_id = await shortcuts.item_id_by_number(uow, kind=kind, internal_id=number)
    return await discussion_view(located, kind, item_id)


async def discussion_view(ctx: BotContext, kind: ItemKind, item_id: str) -> Card:
    """The item card linking to the item's thread, started now if it had none."""
    assert ctx.channel is not None and ctx.discussions is not None, "in a channel of the app"
    url = await ctx.discussions.open(
        actor=ctx.actor, channel=ctx.channel, kind=kind, item_id=item_id
    )
    async with ctx.work(write=False) as uow:
        item = await card_data.details(uow, kind=kind, item_id=item_id)
        note = Note(f"#{item.internal_id} is discussed in a thread in its channel")
        return await card_data.card_of(
            uow, item, discussion_url=url, note=note, public_url=ctx.public_url
        )


async def create(ctx: BotContext, command: grammar.Create) -> Card:
    """`new bug <title>` creates at once with the channel's defaults; `new bug` opens the form."""
    kind = command.kind
    text = f"new {kind.value} {command.title or ''}".strip()
    if ctx.channel is None:
        async with ctx.work(write=False) as uow:
            places = await shortcuts.readable_channels(uow)
        if not places:
            raise NotFound(NO_CHANNEL)
        if len(places) > 1:
            question = f"Which channel is the new {kind.value} for?"
            return channel_choice(question, command=text, places=[*map(card_data.place, places)])
        ctx = await card_data.in_channel(
            ctx, team_id=places[0].team_id, channel_id=places[0].channel_id
        )
    assert ctx.channel is not None
    if command.title is None:
        async with ctx.work(write=False) as uow:
            choices = await card_data.choices(uow, kind=kind)
        return item_form(kind, channel_id=ctx.channel.teams_channel_id, choices=choices)
    body = typed_in(CREATE[kind], {"name": command.title})
    async with ctx.work() as uow:
        created = await items.create_item(uow, kind=kind, body=body, entity_id=None)
        return await card_data.created_view(
            uow, kind=kind, item_id=created.row["id"], public_url=ctx.public_url
        )

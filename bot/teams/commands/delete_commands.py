"""`delete bug 9`: a card asking to confirm, naming the item; its Delete button deletes the item
through the service the API's DELETE uses, for a member of the item's channel."""

from collections.abc import Mapping
from typing import Any

from bot.errors import NotFound
from bot.items import service as items
from bot.items import shortcuts
from bot.teams.commands import card_data, grammar
from bot.teams.commands.item_commands import channel_of_number
from bot.teams.context import BotContext
from cards import verbs
from cards.delete import delete_confirmation, deleted_card
from cards.layout import Card


async def delete(ctx: BotContext, command: grammar.Delete) -> Card:
    """The confirmation card (in a chat: once the item's channel is known)."""
    kind, number = command.kind, command.internal_id
    located = await channel_of_number(ctx, kind, number, f"delete {kind.value} {number}")
    if not isinstance(located, BotContext):
        return located
    async with located.work(write=False) as uow:
        item_id = await shortcuts.item_id_by_number(uow, kind=kind, internal_id=number)
        return delete_confirmation(await card_data.details(uow, kind=kind, item_id=item_id))


async def confirm(ctx: BotContext, data: verbs.DeleteItem, _raw: Mapping[str, Any]) -> Card:
    """Delete the item; a second click (or another person's first) finds it gone and says so."""
    ctx = await card_data.in_channel(ctx, team_id=None, channel_id=data.channel_id)
    assert ctx.files is not None, "the app's file store, which the item's attachments leave"
    assert ctx.deletions is not None, "what keeps something of a deleted item (its thread)"
    kind = data.kind
    try:
        async with ctx.work() as uow:
            item = await card_data.details(uow, kind=kind, item_id=data.item_id)
            await items.delete_item(
                uow, kind=kind, item_id=data.item_id, files=ctx.files, deletions=ctx.deletions
            )
    except NotFound:
        line = f"#{data.internal_id} was already deleted"
    else:
        line = f"{ctx.actor.display_name} deleted #{item.internal_id} {item.name}"
    return deleted_card(line, kind=kind, channel_id=data.channel_id)

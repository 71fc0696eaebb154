"""What an item's page shows, read as the caller: the item, where it lives, its thread's link."""

from dataclasses import dataclass

from bot.db.uow import UnitOfWork
from bot.directory.access import resolve_channel
from bot.discussions import service as discussions
from bot.discussions import shapes
from bot.errors import NotFound
from bot.items import read
from bot.items.schemas import DETAILS, TaskDetails
from bot.items.shortcuts import Whereabouts, locate_item
from bot.schemas import ItemKind


@dataclass(frozen=True)
class ItemPage:
    kind: ItemKind
    item: TaskDetails
    where: Whereabouts
    discussion_url: str | None  # the Teams deep link to its thread, once it has one


async def item_page(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> ItemPage:
    """The item of this kind, if the caller may read its channel (the API's rule); a 404
    otherwise, the same whether it exists elsewhere or not at all."""
    assert uow.actor is not None, "a page is read by a signed-in caller"
    found, where = await locate_item(uow, item_id=item_id)
    if found is not kind:
        raise NotFound(f"{kind.type_label} '{item_id}' not found.")
    uow.channel = await resolve_channel(
        uow, user_id=uow.actor.user_id, team_id=where.team_id, channel_id=where.channel_id
    )
    item = DETAILS[kind].model_validate(await read.get_details(uow, kind=kind, item_id=item_id))
    try:
        thread = await discussions.find_thread(uow, kind=kind, item_id=item_id)
    except discussions.NotStarted:
        return ItemPage(kind, item, where, None)
    url = shapes.web_url(thread.place, message_id=thread.root_id, root_id=thread.root_id)
    return ItemPage(kind, item, where, url)

"""The root of an item's thread as it is now (what its card shows: the Teams edge draws it and
describes it as the API returns it), read outside any request."""

from sqlalchemy import bindparam, select

from bot.db.statements import Prepared
from bot.db.tables import Channel, Item, Team
from bot.db.uow import UnitOfWork
from bot.items import read
from bot.messaging import ThreadRoot
from bot.schemas import ItemKind

BOT_NAME = "Tracker"  # the app's short name in the manifest: what people type after @

# The item with its channel's Teams ids, as `read.render_across_channels` takes it.
_ITEM = Prepared(
    select(
        *read.SHOWN_ITEM_COLUMNS,
        Channel.teams_id.label("teams_channel_id"),
        Team.teams_id.label("teams_team_id"),
        Team.group_id.label("group_id"),
        Team.unmentioned_message_at,
    )
    .select_from(Item)
    .join(Channel, Channel.id == Item.channel_id)
    .join(Team, Team.id == Channel.team_id)
    .where(Item.id == bindparam("item"))
)


async def current_root(uow: UnitOfWork, *, item_id: str) -> ThreadRoot | None:
    """The item's root now; None when the item is gone."""
    row = await uow.row(_ITEM, {"item": item_id})
    if row is None:
        return None
    kind = ItemKind(row["kind"])
    [details] = await read.render_across_channels(uow, kind, [row])
    return ThreadRoot(
        kind=kind,
        item=details,
        at=uow.clock.now(),
        asks_mention=row["unmentioned_message_at"] is None,
    )

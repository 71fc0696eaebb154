"""The root card of an item as it is now, and its channel's scope, read outside any request."""

from typing import Any

from sqlalchemy import bindparam, select

from bot.db.statements import Prepared
from bot.db.tables import Channel, Item, Team
from bot.db.uow import ChannelScope, UnitOfWork
from bot.items import read
from bot.items.schemas import BugDetails, TaskDetails
from bot.jobs.worker import PermanentFailure
from bot.schemas import ItemKind
from bot.teams.links import item_link
from cards.thread import root_card

# The item with its channel's Teams ids, as `read.render_across_channels` takes it.
_ITEM = Prepared(
    select(
        *read.SHOWN_ITEM_COLUMNS,
        Channel.teams_id.label("teams_channel_id"),
        Team.teams_id.label("teams_team_id"),
        Team.group_id.label("group_id"),
    )
    .select_from(Item)
    .join(Channel, Channel.id == Item.channel_id)
    .join(Team, Team.id == Channel.team_id)
    .where(Item.id == bindparam("item"))
)


async def current_card(uow: UnitOfWork, *, item_id: str, public_url: str) -> dict[str, Any] | None:
    """The item's root card now; None when the item is gone."""
    row = await uow.row(_ITEM, {"item": item_id})
    if row is None:
        return None
    kind = ItemKind(row["kind"])
    [details] = await read.render_across_channels(uow, kind, [row])
    model = BugDetails if kind is ItemKind.BUG else TaskDetails
    return root_card(model.model_validate(details), item_url=item_link(public_url, kind, item_id))


_SCOPE = Prepared(
    select(
        Channel.team_id,
        Team.teams_id.label("teams_team_id"),
        Channel.id.label("channel_id"),
        Channel.teams_id.label("teams_channel_id"),
        Team.group_id,
        Team.tenant_id,
    )
    .join(Team, Team.id == Channel.team_id)
    .where(Channel.id == bindparam("channel"))
)


async def scope_of_channel(uow: UnitOfWork, *, channel_id: str) -> ChannelScope:
    """A channel's scope, for background work that acts in it as a request would."""
    row = await uow.row(_SCOPE, {"channel": channel_id})
    if row is None:
        raise PermanentFailure(f"Channel '{channel_id}' no longer exists.")
    return ChannelScope(**row)

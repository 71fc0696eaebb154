"""The root of an item's thread as it is now (the card posted, the description the API returns),
and its channel's scope, read outside any request."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select

from bot.db.statements import Prepared
from bot.db.tables import Channel, Item, Team
from bot.db.uow import UnitOfWork
from bot.items import read
from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ItemKind
from bot.teams.links import item_link
from cards.layout import Card
from cards.thread import root_card, root_description

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


@dataclass(frozen=True, slots=True)
class Root:
    """An item's thread root: the Adaptive Card posted in Teams, and its description in the
    seed's connector-card shape, stored as the API returns it."""

    card: Card
    described: dict[str, Any]


def root_of(
    item: TaskDetails, *, kind: ItemKind, public_url: str, now: datetime, mention_needed: bool
) -> Root:
    """The item's root; `mention_needed` where the team's unmentioned messages have never
    reached the app (Teams may deliver only @mentions there), so its card asks for one."""
    url = item_link(public_url, kind, item.id)
    card = root_card(item, item_url=url, now=now, mention=BOT_NAME if mention_needed else None)
    return Root(card, root_description(item, item_url=url))


async def current_root(uow: UnitOfWork, *, item_id: str, public_url: str) -> Root | None:
    """The item's root now; None when the item is gone."""
    row = await uow.row(_ITEM, {"item": item_id})
    if row is None:
        return None
    kind = ItemKind(row["kind"])
    [details] = await read.render_across_channels(uow, kind, [row])
    model = BugDetails if kind is ItemKind.BUG else TaskDetails
    return root_of(
        model.model_validate(details),
        kind=kind,
        public_url=public_url,
        now=uow.clock.now(),
        mention_needed=row["unmentioned_message_at"] is None,
    )

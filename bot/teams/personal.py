"""The caller's items across channels, for lists in 1:1 and group chats.

The one seam to the personal views (`bot/me/`, built on another branch): once they land,
`my_items` becomes a call to `bot.me.service.list_my_items` with the same page arguments.
Until then it reads each of the caller's channels through the channel list service.
"""

from dataclasses import dataclass, replace

from bot.directory import service as directory
from bot.items import read
from bot.items import shortcuts as items_by_number
from bot.items.queries import entity_set
from bot.odata.query import parse_query
from bot.schemas import ItemKind
from bot.uow import UnitOfWork


@dataclass(frozen=True)
class MyPage:
    rows: list[read.Details]  # the details shape, newest first
    more: bool
    total: int


async def my_items(
    uow: UnitOfWork, *, kind: ItemKind, condition: str | None, skip: int, top: int
) -> MyPage:
    """Items of `kind` assigned to the caller in every channel they may act in, newest first,
    that also meet `condition` (an OData $filter)."""
    assert uow.actor is not None
    mine = f"assignedTo/any(a: a/_id eq '{uow.actor.user_id}')"
    rows: list[read.Details] = []
    total = 0
    for where in await items_by_number.readable_channels(uow):
        scope = await directory.resolve_channel(
            uow, user_id=uow.actor.user_id, team_id=where.team_id, channel_id=where.channel_id
        )
        channel_uow = replace(uow, channel=scope)
        wanted = f"({mine}) and ({condition})" if condition else mine
        params = {"$filter": wanted, "$top": str(skip + top), "$count": "true"}
        query = parse_query(params, entity_set(kind, scope))
        found = await read.list_items(channel_uow, kind=kind, query=query)
        rows.extend(found.rows)
        total += found.count or 0
    rows.sort(key=lambda row: (row["createdAt"], row["_id"]), reverse=True)
    return MyPage(rows[skip : skip + top], total > skip + top, total)

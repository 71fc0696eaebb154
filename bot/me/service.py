"""Personal views: the caller's items across channels, and the channels they may read."""

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from sqlalchemy import BindParameter, Select, bindparam

from bot.db.uow import UnitOfWork
from bot.items import read
from bot.me.queries import my_channels_statement, my_items_count, my_items_statement
from bot.me.schemas import ChannelStatus, MyChannel
from bot.odata.plans import ListStatements, counted
from bot.odata.query import Query, page
from bot.schemas import ItemKind

# The personal lists' statements, prepared once per list and shape: the caller is a parameter
# (`_CALLER`), bound per request.
_STATEMENTS = ListStatements()
_CALLER = "caller_id"


async def list_my_items(uow: UnitOfWork, *, kind: ItemKind, query: Query) -> read.Page:
    """A page of the items of `kind` assigned to the caller in every channel they may read, in
    the details shape plus `teamName` and `channelName`; the exact count if asked."""
    caller: BindParameter[str] = bindparam(_CALLER)
    rows, count, last_read = await _page(
        uow,
        ("items", kind),
        query,
        lambda: my_items_statement(caller, kind),
        lambda: my_items_count(caller, kind, query),
    )
    details = await read.render_across_channels(uow, kind, rows)
    for shown, row in zip(details, rows, strict=True):
        shown["teamName"], shown["channelName"] = row["team_name"], row["channel_name"]
    return read.Page(details, count, last_read)


async def list_my_channels(
    uow: UnitOfWork, *, kind: ItemKind, query: Query
) -> tuple[list[MyChannel], int | None, Mapping[str, Any] | None]:
    """A page of the channels the caller may read, as the personal view of `kind` shows them."""

    def statement() -> Select[Any]:
        return my_channels_statement(bindparam(_CALLER), kind)

    shapes = ("channels", kind)
    rows, count, last_read = await _page(uow, shapes, query, statement, counted(statement, query))
    channels = [
        MyChannel(
            id=row["id"],
            display_name=row["display_name"],
            project_name=row["project_name"],
            color=row["color"],
            status=ChannelStatus(row["status"]),
            team_id=row["teams_team_id"],
            team_name=row["team_name"],
            channel_id=row["teams_channel_id"],
            channel_name=row["channel_name"],
        )
        for row in rows
    ]
    return channels, count, last_read


async def _page(
    uow: UnitOfWork,
    kind: Hashable,
    query: Query,
    statement: Callable[[], Select[Any]],
    counting: Callable[[], Select[Any]],
) -> tuple[Sequence[Mapping[str, Any]], int | None, Mapping[str, Any] | None]:
    """The caller's rows of one page (read with their sort values), the count if asked (by
    `counting`), and the last row read when more follow (the next link's key)."""
    caller = {_CALLER: _caller(uow)}
    paged, values = _STATEMENTS.page(kind, query, statement)
    rows, more = page(await uow.rows(paged, {**values, **caller}), query)
    count = None
    if query.count:
        count = await uow.value(_STATEMENTS.count(kind, query, counting), caller)
    return rows, count, rows[-1] if more else None


def _caller(uow: UnitOfWork) -> str:
    assert uow.actor is not None, "personal views are the signed-in caller's"
    return uow.actor.user_id

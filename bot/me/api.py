"""Personal routes: the caller's tasks and bugs across channels, and the channel picker's rows."""

from typing import Any

from bot.me import service as me
from bot.me.queries import my_channels, my_items
from bot.me.schemas import MyBugPage, MyChannelPage, MyTaskPage
from bot.schemas import CollectionPage, ItemKind
from bot.web.collections import query_of, render_page
from bot.web.routing import Access, Call, RouteTable, named

routes = RouteTable(tag="me")

PAGE: dict[ItemKind, type[CollectionPage]] = {ItemKind.TASK: MyTaskPage, ItemKind.BUG: MyBugPage}


def _declare(kind: ItemKind) -> None:
    items_set, channels_set = my_items(kind), my_channels(kind)

    async def list_items(call: Call) -> dict[str, Any]:
        query = query_of(call, items_set)
        found = await me.list_my_items(call.uow, kind=kind, query=query)
        more = found.last_read is not None
        return render_page(call, items_set, query, found.rows, found.count, more, found.last_read)

    async def list_channels(call: Call) -> dict[str, Any]:
        query = query_of(call, channels_set)
        channels, count, last_read = await me.list_my_channels(call.uow, kind=kind, query=query)
        rows = [channel.model_dump(mode="json") for channel in channels]
        more = last_read is not None
        return render_page(call, channels_set, query, rows, count, more, last_read)

    plural = kind.plural
    routes.route(
        "GET",
        f"/api/me/{plural}",
        access=Access.PERSONAL,
        response=PAGE[kind],
        summary=f"The caller's {plural} in every channel they may read (OData)",
        capped=True,
    )(named(f"my_{plural}", list_items))
    routes.route(
        "GET",
        f"/api/me/{kind.value}/channels",
        access=Access.PERSONAL,
        response=MyChannelPage,
        summary=f"The channels the caller may read, with each one's {kind.value} status (OData)",
        capped=True,
    )(named(f"my_{kind.value}_channels", list_channels))


for _kind in ItemKind:
    _declare(_kind)

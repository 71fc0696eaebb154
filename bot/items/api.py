"""Routes for bugs and tasks, declared once per kind (the paths mirror each other)."""

from typing import Any

from bot.items import bulk, history, read
from bot.items import service as items
from bot.items.history_schemas import HistoryPage
from bot.items.queries import LISTS, entity_set
from bot.items.schemas import CREATE, CREATED, DETAILS, PAGE, PATCH, BulkEdit, BulkResults
from bot.keys import DOWNLOAD_LINKS, FILE_STORE, ITEM_DELETIONS
from bot.schemas import ItemKind
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import ENTITY_HEADER, Access, Call, RouteTable, named, optional_header

routes = RouteTable(tag="items")


def _declare(kind: ItemKind) -> None:
    label, plural = kind.value, kind.plural

    async def list_items(call: Call) -> dict[str, Any]:
        entity = entity_set(kind)
        query = query_of(call, entity)
        found = await read.list_items(call.uow, kind=kind, query=query)
        more = found.last_read is not None
        return render_page(call, entity, query, found.rows, found.count, more, found.last_read)

    async def create(call: Call) -> dict[str, Any]:
        entity_id = optional_header(call.request, ENTITY_HEADER)
        created = await items.create_item(call.uow, kind=kind, body=call.body, entity_id=entity_id)
        base = call.settings.public_url
        link = entity_link(base, plural, created.row["id"])
        return {
            "@odata.context": entity_context(base, plural),
            "@odata.editLink": link,
            "@odata.id": link,
            **created.fields,
        }

    async def details(call: Call) -> dict[str, Any]:
        item_id, links = call.request.match_info["id"], call.request.app[DOWNLOAD_LINKS]
        return await read.get_details(call.uow, kind=kind, item_id=item_id, links=links)

    async def item_history(call: Call) -> dict[str, Any]:
        query = query_of(call, history.HISTORY)
        item_id = call.request.match_info["id"]
        found = await history.list_history(call.uow, kind=kind, item_id=item_id, query=query)
        more = found.last_read is not None
        return render_page(
            call, history.HISTORY, query, found.entries, found.count, more, found.last_read
        )

    async def patch(call: Call) -> None:
        item_id = entity_key(call.request.match_info["key"])
        await items.update_item(call.uow, kind=kind, item_id=item_id, patch=call.body)

    async def delete(call: Call) -> None:
        item_id = entity_key(call.request.match_info["key"])
        files, deletions = call.request.app[FILE_STORE], call.request.app[ITEM_DELETIONS]
        await items.delete_item(
            call.uow, kind=kind, item_id=item_id, files=files, deletions=deletions
        )

    async def bulk_edit(call: Call) -> BulkResults:
        return BulkResults(await bulk.bulk_edit(call.uow, kind=kind, edit=call.body))

    channel = Access.CHANNEL
    summary = f"The channel's {plural}: an OData collection of details"
    routes.route(
        "GET", f"/api/{plural}", access=channel, summary=summary, response=PAGE[kind], capped=True
    )(named(f"list_{plural}", list_items))
    routes.route(
        "GET",
        f"/odata/{plural}",
        access=channel,
        summary=summary,
        response=PAGE[kind],
        odata_set=LISTS[kind],
        capped=True,
    )(named(f"list_odata_{plural}", list_items))
    routes.route(
        "POST",
        f"/odata/{plural}",
        access=channel,
        summary=f"Create a {label}",
        body=CREATE[kind],
        status=201,
        response=CREATED[kind],
        headers=(ENTITY_HEADER,),  # a personal tab's entity id, stored as the item's entityId
    )(named(f"create_{label}", create))
    routes.route(
        "GET",
        f"/api/{plural}/{{id}}/details",
        access=channel,
        summary=f"A {label} in full",
        response=DETAILS[kind],
        errors=(404,),
    )(named(f"{label}_details", details))
    routes.route(
        "GET",
        f"/api/{plural}/{{id}}/history",
        access=channel,
        summary=f"A {label}'s changes, newest first: who, when, each field's old and new value",
        response=HistoryPage,
        errors=(404,),
    )(named(f"{label}_history", item_history))
    routes.route(
        "PATCH",
        f"/odata/{plural}({{key}})",
        access=channel,
        body=PATCH[kind],
        status=204,
        errors=(404,),
        summary=f"Change some fields of a {label}",
    )(named(f"update_{label}", patch))
    routes.route(
        "DELETE",
        f"/odata/{plural}({{key}})",
        access=channel,
        status=204,
        errors=(404,),
        summary=f"Delete a {label} for good",
    )(named(f"delete_{label}", delete))
    routes.route(
        "POST",
        f"/api/bulk/{label}",
        access=channel,
        body=BulkEdit,
        response=BulkResults,
        summary=f"Edit up to 1000 {plural} at once; one result per id",
    )(named(f"bulk_edit_{plural}", bulk_edit))


for _kind in ItemKind:
    _declare(_kind)

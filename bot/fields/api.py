"""Status routes, OData style (docs/api.md, Statuses, priorities and severities)."""

from typing import Any

from bot.db.statements import Row
from bot.fields import service as fields
from bot.fields.queries import STATUSES
from bot.fields.schemas import StatusIn, StatusOut, StatusPage, StatusPatch
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="fields")
STATUS_SET = "status"


def status_out(status: Row, base_url: str) -> StatusOut:
    link = entity_link(base_url, STATUS_SET, status.id)
    return StatusOut.model_validate(
        {
            "odata_context": entity_context(base_url, STATUS_SET),
            "odata_edit_link": link,
            "odata_id": link,
            "id": status.id,
            "name": status.name,
            "color": status.color,
            "category": status.category,
            "description": status.description,
            "primary": status.primary,
            "order": status.order,
            "value": status.value,
            "type": status.type,
            "created_at": status.created_at,
            "updated_at": status.updated_at,
        }
    )


@routes.route(
    "GET",
    "/odata/status",
    access=Access.CHANNEL,
    response=StatusPage,
    summary="The channel's statuses of both kinds (OData; filter on `type`)",
    odata_set=STATUSES,
)
async def list_statuses(call: Call) -> dict[str, Any]:
    query = query_of(call, STATUSES)
    rows, count, more = await fields.list_statuses(call.uow, query=query)
    base = call.settings.public_url
    values = [status_out(row, base).model_dump(mode="json") for row in rows]
    return render_page(call, STATUSES, query, values, count, more)


@routes.route(
    "POST",
    "/odata/status",
    access=Access.CHANNEL,
    body=StatusIn,
    status=201,
    response=StatusOut,
    summary="Add a status to the channel",
)
async def create_status(call: Call) -> StatusOut:
    status = await fields.create_status(call.uow, body=call.body)
    return status_out(status, call.settings.public_url)


@routes.route(
    "PATCH",
    "/odata/status({key})",
    access=Access.CHANNEL,
    body=StatusPatch,
    status=204,
    errors=(404,),
    summary="Change a status",
)
async def update_status(call: Call) -> None:
    key = entity_key(call.request.match_info["key"])
    await fields.update_status(call.uow, status_id=key, patch=call.body)


@routes.route(
    "DELETE",
    "/odata/status({key})",
    access=Access.CHANNEL,
    status=204,
    errors=(404,),
    summary="Delete a status; its items become Invalid",
)
async def delete_status(call: Call) -> None:
    await fields.delete_status(call.uow, status_id=entity_key(call.request.match_info["key"]))

"""Status, priority and severity routes (OData style, as the seed shows them)."""

from typing import Any

from bot.db.tables import FieldValue
from bot.fields import levels
from bot.fields import service as fields
from bot.fields.levels import PRIORITY_SCALE, SEVERITY_SCALE
from bot.fields.queries import PRIORITIES, SEVERITIES, STATUSES
from bot.fields.schemas import (
    LevelOut,
    LevelPage,
    LevelPatch,
    PriorityIn,
    SeverityIn,
    StatusIn,
    StatusOut,
    StatusPage,
    StatusPatch,
)
from bot.odata.model import EntitySet
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="fields")
STATUS_SET = "status"


def status_out(status: FieldValue, base_url: str) -> StatusOut:
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


# --- priorities and severities ----------------------------------------------------------------

REASSIGN_TO = (("reassignTo", "Another value of the same type to move the items holding it to"),)


def level_out(level: FieldValue, entity: EntitySet, base_url: str) -> LevelOut:
    link = entity_link(base_url, entity.name, level.id)
    return LevelOut.model_validate(
        {
            "odata_context": entity_context(base_url, entity.name),
            "odata_edit_link": link,
            "odata_id": link,
            "id": level.id,
            "type": level.type,
            "name": level.name,
            "color": level.color,
            "order": level.order,
            "value": level.value,
            "primary": level.primary,
            "description": level.description,
            "created_at": level.created_at,
            "updated_at": level.updated_at,
        }
    )


async def _list_levels(call: Call, scale: levels.Scale, entity: EntitySet) -> dict[str, Any]:
    query = query_of(call, entity)
    rows, count, more = await levels.list_levels(call.uow, scale=scale, query=query)
    base = call.settings.public_url
    values = [level_out(row, entity, base).model_dump(mode="json") for row in rows]
    return render_page(call, entity, query, values, count, more)


def _key(call: Call) -> str:
    return entity_key(call.request.match_info["key"])


def _reassign_to(call: Call) -> str | None:
    return call.request.query.get("reassignTo")


@routes.route(
    "GET",
    "/api/priority",
    access=Access.CHANNEL,
    response=LevelPage,
    summary="The channel's priorities of both kinds (OData; filter on `type`)",
)
async def list_priorities(call: Call) -> dict[str, Any]:
    return await _list_levels(call, PRIORITY_SCALE, PRIORITIES)


@routes.route(
    "POST",
    "/odata/priority",
    access=Access.CHANNEL,
    body=PriorityIn,
    status=201,
    response=LevelOut,
    summary="Add a priority to the channel",
)
async def create_priority(call: Call) -> LevelOut:
    level = await levels.create_level(call.uow, scale=PRIORITY_SCALE, body=call.body)
    return level_out(level, PRIORITIES, call.settings.public_url)


@routes.route(
    "PATCH",
    "/odata/priority({key})",
    access=Access.CHANNEL,
    body=LevelPatch,
    status=204,
    errors=(404,),
    summary="Change a priority; a new name reaches the items holding it",
)
async def update_priority(call: Call) -> None:
    await levels.update_level(call.uow, scale=PRIORITY_SCALE, level_id=_key(call), patch=call.body)


@routes.route(
    "DELETE",
    "/odata/priority({key})",
    access=Access.CHANNEL,
    status=204,
    errors=(404, 409),
    query=REASSIGN_TO,
    summary="Delete a priority; 409 while items hold it, unless they move to `reassignTo`",
)
async def delete_priority(call: Call) -> None:
    await levels.delete_level(
        call.uow, scale=PRIORITY_SCALE, level_id=_key(call), reassign_to=_reassign_to(call)
    )


@routes.route(
    "GET",
    "/api/severity",
    access=Access.CHANNEL,
    response=LevelPage,
    summary="The channel's bug severities (OData)",
)
async def list_severities(call: Call) -> dict[str, Any]:
    return await _list_levels(call, SEVERITY_SCALE, SEVERITIES)


@routes.route(
    "POST",
    "/odata/severity",
    access=Access.CHANNEL,
    body=SeverityIn,
    status=201,
    response=LevelOut,
    summary="Add a bug severity to the channel (at most 8)",
)
async def create_severity(call: Call) -> LevelOut:
    level = await levels.create_level(call.uow, scale=SEVERITY_SCALE, body=call.body)
    return level_out(level, SEVERITIES, call.settings.public_url)


@routes.route(
    "PATCH",
    "/odata/severity({key})",
    access=Access.CHANNEL,
    body=LevelPatch,
    status=204,
    errors=(404,),
    summary="Change a severity; a new name reaches the bugs holding it",
)
async def update_severity(call: Call) -> None:
    await levels.update_level(call.uow, scale=SEVERITY_SCALE, level_id=_key(call), patch=call.body)


@routes.route(
    "DELETE",
    "/odata/severity({key})",
    access=Access.CHANNEL,
    status=204,
    errors=(404, 409),
    query=REASSIGN_TO,
    summary="Delete a severity; 409 while bugs hold it, unless they move to `reassignTo`",
)
async def delete_severity(call: Call) -> None:
    await levels.delete_level(
        call.uow, scale=SEVERITY_SCALE, level_id=_key(call), reassign_to=_reassign_to(call)
    )

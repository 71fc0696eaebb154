"""Priority and severity routes: one declaration per scale, as the two mirror each other."""

from typing import Any

from bot.db.statements import Row
from bot.fields import levels
from bot.fields.levels import PRIORITY_SCALE, SEVERITY_SCALE, Scale
from bot.fields.queries import PRIORITIES, SEVERITIES
from bot.fields.schemas import LevelOut, LevelPage, LevelPatch, PriorityIn, SeverityIn
from bot.odata.model import EntitySet
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, RouteTable, named

routes = RouteTable(tag="fields")
REASSIGN_TO = (("reassignTo", "Another value of the same type to move the items holding it to"),)


def level_out(level: Row, entity: EntitySet, base_url: str) -> LevelOut:
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


def _key(call: Call) -> str:
    return entity_key(call.request.match_info["key"])


def _declare(
    scale: Scale, entity: EntitySet, body: type[PriorityIn | SeverityIn], held_by: str
) -> None:
    one, many = scale.field, scale.plural

    async def list_levels(call: Call) -> dict[str, Any]:
        query = query_of(call, entity)
        rows, count, more = await levels.list_levels(call.uow, scale=scale, query=query)
        base = call.settings.public_url
        values = [level_out(row, entity, base).model_dump(mode="json") for row in rows]
        return render_page(call, entity, query, values, count, more)

    async def create_level(call: Call) -> LevelOut:
        level = await levels.create_level(call.uow, scale=scale, body=call.body)
        return level_out(level, entity, call.settings.public_url)

    async def update_level(call: Call) -> None:
        await levels.update_level(call.uow, scale=scale, level_id=_key(call), patch=call.body)

    async def delete_level(call: Call) -> None:
        reassign_to = call.request.query.get("reassignTo")
        await levels.delete_level(
            call.uow, scale=scale, level_id=_key(call), reassign_to=reassign_to
        )

    route = routes.route
    kinds = "of both kinds (OData; filter on `type`)" if scale is PRIORITY_SCALE else "(OData)"
    route(
        "GET",
        f"/api/{one}",
        access=Access.CHANNEL,
        response=LevelPage,
        summary=f"The channel's {many} {kinds}",
    )(named(f"list_{many}", list_levels))
    limit = f" (at most {scale.most_per_channel})" if scale.most_per_channel else ""
    route(
        "POST",
        f"/odata/{one}",
        access=Access.CHANNEL,
        body=body,
        status=201,
        response=LevelOut,
        summary=f"Add a {one} to the channel{limit}",
    )(named(f"create_{one}", create_level))
    route(
        "PATCH",
        f"/odata/{one}({{key}})",
        access=Access.CHANNEL,
        body=LevelPatch,
        status=204,
        errors=(404,),
        summary=f"Change a {one}; a new name reaches the {held_by} holding it",
    )(named(f"update_{one}", update_level))
    route(
        "DELETE",
        f"/odata/{one}({{key}})",
        access=Access.CHANNEL,
        status=204,
        errors=(404, 409),
        query=REASSIGN_TO,
        summary=f"Delete a {one}; 409 while {held_by} hold it, unless they move to `reassignTo`",
    )(named(f"delete_{one}", delete_level))


_declare(PRIORITY_SCALE, PRIORITIES, PriorityIn, "items")
_declare(SEVERITY_SCALE, SEVERITIES, SeverityIn, "bugs")

"""Field mapping routes, OData style (docs/api.md, Field mappings)."""

from typing import Any

from bot.mappings import service as mappings
from bot.mappings.queries import MAPPINGS
from bot.mappings.schemas import MappingIn, MappingOut, MappingPage, MappingPatch
from bot.mappings.service import MappingView
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="mappings")


def mapping_out(view: MappingView, base_url: str) -> MappingOut:
    mapping = view.mapping
    link = entity_link(base_url, MAPPINGS.name, mapping.id)
    return MappingOut.model_validate(
        {
            "odata_context": entity_context(base_url, MAPPINGS.name),
            "odata_edit_link": link,
            "odata_id": link,
            "id": mapping.id,
            "field_id": mapping.field_id,
            "field_name": view.field_name,
            "project_id": mapping.project_id,
            "project_hostname": view.project_hostname,
            "source": view.source,
            "source_id": mapping.source_value_id,
            "source_name": mapping.source_value_name,
            "enable": mapping.enable,
            "type": mapping.type,
            "entity_type": mapping.entity_type,
            "created_at": mapping.created_at,
            "updated_at": mapping.updated_at,
        }
    )


@routes.route(
    "GET",
    "/odata/_fieldMappings",
    access=Access.CHANNEL,
    response=MappingPage,
    summary="The channel's field mappings (OData)",
    odata_set=MAPPINGS,
)
async def list_mappings(call: Call) -> dict[str, Any]:
    query = query_of(call, MAPPINGS)
    views, count, more = await mappings.list_mappings(call.uow, query=query)
    base = call.settings.public_url
    values = [mapping_out(view, base).model_dump(mode="json") for view in views]
    return render_page(call, MAPPINGS, query, values, count, more)


@routes.route(
    "POST",
    "/odata/_fieldMappings",
    access=Access.CHANNEL,
    body=MappingIn,
    status=201,
    response=MappingOut,
    summary="Map a source value to a channel value (each source value once)",
)
async def create_mapping(call: Call) -> MappingOut:
    view = await mappings.create_mapping(call.uow, body=call.body)
    return mapping_out(view, call.settings.public_url)


@routes.route(
    "PATCH",
    "/odata/_fieldMappings({key})",
    access=Access.CHANNEL,
    body=MappingPatch,
    status=204,
    errors=(404,),
    summary="Change a mapping; the project's items are judged again",
)
async def update_mapping(call: Call) -> None:
    key = entity_key(call.request.match_info["key"])
    await mappings.update_mapping(call.uow, mapping_id=key, patch=call.body)


@routes.route(
    "DELETE",
    "/odata/_fieldMappings({key})",
    access=Access.CHANNEL,
    status=204,
    errors=(404,),
    summary="Delete a mapping; items using that value for the project become Invalid",
)
async def delete_mapping(call: Call) -> None:
    key = entity_key(call.request.match_info["key"])
    await mappings.delete_mapping(call.uow, mapping_id=key)

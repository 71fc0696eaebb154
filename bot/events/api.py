"""Event rule routes (docs/api.md, Event rules): the definitions, OData style, their signing
secret, and the triggers they may choose."""

from typing import Any

from bot.db.statements import Row
from bot.db.uow import ChannelScope
from bot.events import service as events
from bot.events.definitions.header_values import masked
from bot.events.definitions.queries import DEFINITIONS
from bot.events.definitions.triggers import TRIGGERS
from bot.events.schemas import (
    DefinitionCreated,
    DefinitionIn,
    DefinitionOut,
    DefinitionPage,
    DefinitionPatch,
    ExplainIn,
    Explanation,
    RotatedSecret,
    Triggers,
)
from bot.web.collections import query_of, render_page
from bot.web.odata_keys import entity_context, entity_key, entity_link
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="events")


def definition_out(definition: Row, channel: ChannelScope, base_url: str) -> dict:
    """A rule in the API's shape, JSON-ready; never its secrets nor its header values."""
    link = entity_link(base_url, DEFINITIONS.name, definition.id)
    return DefinitionOut.model_validate(
        {
            "odata_context": entity_context(base_url, DEFINITIONS.name),
            "odata_edit_link": link,
            "odata_id": link,
            "id": definition.id,
            "tenant_id": channel.tenant_id,
            "team_id": channel.teams_team_id,
            "channel_id": channel.teams_channel_id,
            "entity_type": definition.kind,
            "event_name": definition.name,
            "enable": definition.enabled,
            "trigger_type": definition.trigger,
            "conditions_ops": definition.conditions_op,
            "conditions": definition.conditions,
            "action_type": definition.action_type,
            "action": masked(definition.action),
            "disabled_reason": definition.disabled_reason,
            "created_at": definition.created_at,
            "updated_at": definition.updated_at,
        }
    ).model_dump(mode="json")


async def _list(call: Call) -> dict[str, Any]:
    query = query_of(call, DEFINITIONS)
    rows, count, more = await events.list_definitions(call.uow, query=query)
    base = call.settings.public_url
    values = [definition_out(row, call.channel, base) for row in rows]
    return render_page(call, DEFINITIONS, query, values, count, more)


@routes.route(
    "GET",
    "/api/events",
    access=Access.CHANNEL,
    response=DefinitionPage,
    summary="The channel's event rules (OData)",
)
async def list_events(call: Call) -> dict[str, Any]:
    return await _list(call)


@routes.route(
    "GET",
    "/odata/eventDefinitions",
    access=Access.CHANNEL,
    response=DefinitionPage,
    summary="The channel's event rules (OData)",
    odata_set=DEFINITIONS,
)
async def list_definitions(call: Call) -> dict[str, Any]:
    return await _list(call)


@routes.route(
    "GET",
    "/api/events/triggers",
    access=Access.CHANNEL,
    response=Triggers,
    summary="The triggers a rule may choose, in their task and bug forms (a bare array; "
    "`$filter` and `$orderby` apply)",
)
async def list_triggers(call: Call) -> list[dict[str, Any]]:
    return await events.list_triggers(call.uow, query=query_of(call, TRIGGERS))


@routes.route(
    "GET",
    "/odata/eventDefinitions({key})",
    access=Access.CHANNEL,
    response=DefinitionOut,
    errors=(404,),
    summary="One event rule of the channel",
)
async def get_definition(call: Call) -> dict[str, Any]:
    key = entity_key(call.request.match_info["key"])
    definition = await events.get_definition(call.uow, definition_id=key)
    return definition_out(definition, call.channel, call.settings.public_url)


@routes.route(
    "POST",
    "/odata/eventDefinitions",
    access=Access.CHANNEL,
    body=DefinitionIn,
    status=201,
    response=DefinitionCreated,
    summary="Add an event rule; the response shows its signing secret, this once",
)
async def create_definition(call: Call) -> dict[str, Any]:
    await _reachable(call, call.body.action)
    definition = await events.create_definition(call.uow, body=call.body)
    out = definition_out(definition, call.channel, call.settings.public_url)
    return {**out, "secret": definition.secret}


@routes.route(
    "PATCH",
    "/odata/eventDefinitions({key})",
    access=Access.CHANNEL,
    body=DefinitionPatch,
    status=204,
    errors=(404,),
    summary="Change an event rule: any part of the creation body",
)
async def update_definition(call: Call) -> None:
    key = entity_key(call.request.match_info["key"])
    await _reachable(call, call.body.action)
    await events.update_definition(call.uow, definition_id=key, patch=call.body)


@routes.route(
    "DELETE",
    "/odata/eventDefinitions({key})",
    access=Access.CHANNEL,
    status=204,
    errors=(404,),
    summary="Delete an event rule and its delivery log",
)
async def delete_definition(call: Call) -> None:
    key = entity_key(call.request.match_info["key"])
    await events.delete_definition(call.uow, definition_id=key)


@routes.route(
    "POST",
    "/api/events/{id}/secret",
    access=Access.CHANNEL,
    response=RotatedSecret,
    errors=(404,),
    summary="Rotate the signing secret: the new one is shown this once; the old one signs "
    "beside it for 24 hours",
)
async def rotate_secret(call: Call) -> dict[str, Any]:
    definition = await events.rotate_secret(call.uow, definition_id=call.request.match_info["id"])
    assert definition.previous_secret_until is not None
    return RotatedSecret(
        id=definition.id,
        secret=definition.secret,
        previous_secret_until=definition.previous_secret_until,
    ).model_dump(mode="json")


@routes.route(
    "POST",
    "/api/events/{id}/test",
    access=Access.CHANNEL,
    body=ExplainIn,
    response=Explanation,
    errors=(404,),
    summary="Whether the rule would fire for an item now, and which condition decided it "
    "(nothing is sent)",
)
async def explain(call: Call) -> dict[str, Any]:
    explanation = await events.explain(
        call.uow, definition_id=call.request.match_info["id"], item_id=call.body.item_id
    )
    return explanation.model_dump(mode="json", by_alias=True)


async def _reachable(call: Call, action: dict[str, Any] | None) -> None:
    """Refuse an HTTP action whose URL reaches a refused address, before anything is stored
    (its name is looked up here, outside any transaction)."""
    await events.check_reachable(action, call.settings.webhook_allowed_hosts)

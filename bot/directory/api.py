"""Directory routes."""

from typing import Any

from bot.directory.actors import actor_out
from bot.directory.channel_settings import read_settings, update_settings
from bot.directory.queries import USERS
from bot.directory.schemas import (
    ChannelSettingsOut,
    ChannelSettingsPatch,
    ContextOut,
    MemberOut,
    UserPage,
    UserPatch,
)
from bot.directory.source_people import mappings_of, set_mappings
from bot.directory.teams import describe_channel
from bot.directory.users import list_members
from bot.web.collections import query_of, render_page
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="directory")


@routes.route(
    "GET",
    "/api/context",
    access=Access.CHANNEL,
    response=ContextOut,
    summary="The team, channel and user a Teams tab is running for",
)
async def channel_context(call: Call) -> ContextOut:
    team, channel = await describe_channel(call.uow, scope=call.channel)
    return ContextOut(team=team, channel=channel, user=actor_out(call.actor))


@routes.route(
    "GET",
    "/api/channel/settings",
    access=Access.CHANNEL,
    response=ChannelSettingsOut,
    summary="The channel's settings: its due-soon window, digest window and threshold, quiet hours",
)
async def channel_settings(call: Call) -> ChannelSettingsOut:
    return await read_settings(call.uow, settings=call.settings)


@routes.route(
    "PATCH",
    "/api/channel/settings",
    access=Access.CHANNEL,
    body=ChannelSettingsPatch,
    response=ChannelSettingsOut,
    summary="Change the channel's settings: only the fields sent; null follows the installation's "
    "(quiet hours: none)",
)
async def change_channel_settings(call: Call) -> ChannelSettingsOut:
    return await update_settings(call.uow, patch=call.body, settings=call.settings)


@routes.route(
    "GET",
    "/api/users",
    access=Access.CHANNEL,
    response=UserPage,
    summary="The team's members (OData)",
    capped=True,
)
async def list_users(call: Call) -> dict[str, Any]:
    query = query_of(call, USERS)
    members, count, last_read = await list_members(call.uow, query=query)
    mappings = await mappings_of(call.uow, [member.id for member in members])
    rows = [
        MemberOut.model_validate(
            {**member.model_dump(), "mapping": mappings[member.id]}
        ).model_dump(mode="json")
        for member in members
    ]
    more = last_read is not None
    return render_page(call, USERS, query, rows, count, more, last_read)


@routes.route(
    "PATCH",
    "/api/users/{id}",
    access=Access.CHANNEL,
    body=UserPatch,
    response=MemberOut,
    errors=(404, 409),
    summary="Set how a member of the team is known at the external sources: `mapping` replaces "
    "the user's array (the sync engine matches people by it first)",
)
async def set_user_mapping(call: Call) -> MemberOut:
    return await set_mappings(
        call.uow, user_ref=call.request.match_info["id"], entries=call.body.mapping
    )

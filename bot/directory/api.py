"""Directory routes."""

from bot.directory import service as directory
from bot.directory.schemas import ContextOut
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
    team, channel = await directory.describe_channel(call.uow, scope=call.channel)
    return ContextOut(team=team, channel=channel, user=directory.actor_out(call.actor))

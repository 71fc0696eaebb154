"""The channel's live changes route (docs/api.md, Live changes)."""

import contextlib

from aiohttp import web

from bot.changes.schemas import ItemChangeEvent
from bot.changes.stream import ChangeStream, parse_event_id
from bot.keys import CHANGE_FEED
from bot.web.routing import Access, Call, RouteTable

routes = RouteTable(tag="changes")

LAST_EVENT_ID = "Last-Event-ID"


@routes.route(
    "GET",
    "/api/changes/stream",
    access=Access.CHANNEL,
    summary="The channel's item changes as server-sent events, while the connection lasts",
    response=ItemChangeEvent,
    media_type="text/event-stream",
    headers=(LAST_EVENT_ID,),
    apart=True,  # no transaction stays open while the stream waits
)
async def stream_changes(call: Call) -> web.StreamResponse:
    request, app = call.request, call.request.app
    resume = parse_event_id(request.headers.get(LAST_EVENT_ID))
    feed = app[CHANGE_FEED]
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",  # a proxy in front passes each event at once
        }
    )
    await response.prepare(request)
    stream = ChangeStream(
        response,
        unit=lambda: call.unit(write=False),
        channel_id=call.channel.channel_id,
        keep_alive_s=call.settings.changes_keep_alive_seconds,
    )
    # The client going away shows as a failed write: the stream just ends.
    with contextlib.suppress(ConnectionResetError):
        await stream.run(feed, resume)
    return response

"""The live changes routes: the channel's, and the personal tab's (docs/api.md, Live changes)."""

import contextlib
from collections.abc import Callable
from typing import Protocol

from aiohttp import web

from bot.changes.feed import ChangeFeed
from bot.changes.mine import MyChangeStream
from bot.changes.reads import Versions
from bot.changes.schemas import ItemChangeEvent, ListChangeEvent
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
    return await _follow(
        call,
        lambda response: ChangeStream(
            response,
            unit=lambda: call.unit(write=False),
            channel_id=call.channel.channel_id,
            keep_alive_s=call.settings.changes_keep_alive_seconds,
        ),
    )


@routes.route(
    "GET",
    "/api/me/changes/stream",
    access=Access.PERSONAL,
    summary="Which of the caller's item lists moved, in any channel they may read, as "
    "server-sent events, while the connection lasts",
    response=ListChangeEvent,
    media_type="text/event-stream",
    headers=(LAST_EVENT_ID,),
    apart=True,  # no transaction stays open while the stream waits
)
async def stream_my_changes(call: Call) -> web.StreamResponse:
    return await _follow(
        call,
        lambda response: MyChangeStream(
            response,
            unit=lambda: call.unit(write=False),
            user_id=call.actor.user_id,
            keep_alive_s=call.settings.changes_keep_alive_seconds,
        ),
    )


class _Stream(Protocol):
    async def run(self, feed: ChangeFeed, resume: Versions | None) -> None: ...


async def _follow(
    call: Call, stream: Callable[[web.StreamResponse], _Stream]
) -> web.StreamResponse:
    """The stream `stream` makes, written to an event-stream response until either end goes."""
    resume = parse_event_id(call.request.headers.get(LAST_EVENT_ID))
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",  # a proxy in front passes each event at once
        }
    )
    await response.prepare(call.request)
    # The client going away shows as a failed write: the stream just ends.
    with contextlib.suppress(ConnectionResetError):
        await stream(response).run(call.request.app[CHANGE_FEED], resume)
    return response

"""POST /api/messages: authenticate the Bot Framework's request, run the turn, answer invokes."""

import logging

import orjson
from aiohttp import web
from botbuilder.schema import Activity

from bot.errors import BadRequest, Unauthorized, UnsupportedMediaType
from bot.keys import SETTINGS
from bot.teams.keys import BOT, BOT_HANDLER
from bot.web.body import read_body
from bot.web.errors import json_response

log = logging.getLogger(__name__)

PATH = "/api/messages"
UNAUTHORIZED = "The request is not signed by the Bot Framework for this bot."


async def messages(request: web.Request) -> web.StreamResponse:
    if request.content_type != "application/json":
        raise UnsupportedMediaType("Activities are sent as application/json.")
    try:
        body = orjson.loads(
            await read_body(request, seconds=request.app[SETTINGS].body_read_timeout_seconds)
        )
    except orjson.JSONDecodeError:
        raise BadRequest("The body is not valid JSON.") from None
    if not isinstance(body, dict) or not body.get("type"):
        raise BadRequest("The body is not an activity.")
    activity = Activity().deserialize(body)
    runtime = request.app[BOT]
    try:
        # Any failure here is the sender's: bad or missing token, wrong key, audience, expiry.
        auth = await runtime.authenticate(activity, request.headers.get("Authorization", ""))
    except Exception as exc:
        log.info("bot request refused: %s: %s", type(exc).__name__, exc)
        raise Unauthorized(UNAUTHORIZED) from None
    # process_activity, not CloudAdapter.process, which in 4.17 breaks invoke bodies.
    response = await runtime.adapter.process_activity(
        auth, activity, request.app[BOT_HANDLER].on_turn
    )
    if response is None:
        return web.Response(status=200)
    if response.body is None:
        return web.Response(status=response.status)
    return json_response(response.body, response.status)

"""A request id on every response and every log line of that request (`bot.logs`)."""

import itertools
import re
import secrets

from aiohttp import web

HEADER = "x-request-id"
REQUEST_ID = web.RequestKey("request_id", str)
# A client's id is kept only if it is short and plain, so it cannot forge log lines.
_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
# Our own ids: 80 random bits per process, then a counter (32 hex digits in all). Unique without
# reading the system's random source for every request.
_PROCESS = secrets.token_hex(10)
_NUMBERS = itertools.count()


def choose_request_id(sent: str | None) -> str:
    if sent and _ACCEPTABLE.match(sent):
        return sent
    return f"{_PROCESS}{next(_NUMBERS) % 16**12:012x}"


async def add_request_id(request: web.Request, response: web.StreamResponse) -> None:
    """on_response_prepare: every response, streamed ones included, carries the id."""
    if REQUEST_ID in request:
        response.headers[HEADER] = request[REQUEST_ID]

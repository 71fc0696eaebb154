"""What every local source shares on the wire: the exchange log, the faults a test makes a
request meet (hangs, failures, throttling with `Retry-After`), and reading Basic credentials.
Each stand-in gives the refusal in its vendor's own error shape."""

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from aiohttp import web

from bot.clock import Clock
from bot.sync.standins.azure_devops.faults import Faults, Hang, take

Handler = Any  # aiohttp's middleware handler
# A refusal in the vendor's shape: (status, message, headers) → the response.
Refusal = Callable[[int, str, dict[str, str] | None], web.Response]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One request and the answer it got, as they crossed the wire."""

    method: str
    path: str
    query: dict[str, str]
    request_headers: dict[str, str]
    request_body: Any  # parsed JSON, or the text when it is not JSON, or None
    status: int
    response_headers: dict[str, str]
    response_body: Any
    at: datetime | None = None  # when the request arrived, by the stand-in's clock


def logging_to(exchanges: list[Exchange], clock: Clock) -> Any:
    """A middleware noting every exchange, outermost so that it sees what faults answer."""

    @web.middleware
    async def log(request: web.Request, handler: Handler) -> web.StreamResponse:
        arrived_at = clock.now()
        text = await request.text()
        try:
            response = await handler(request)
        except web.HTTPException as refused:
            response = refused
        body = getattr(response, "text", None) if isinstance(response, web.Response) else None
        exchanges.append(
            Exchange(
                request.method,
                request.path,
                dict(request.query),
                dict(request.headers),
                parsed(text),
                response.status,
                dict(response.headers),
                parsed(body or ""),
                arrived_at,
            )
        )
        return response

    return log


def misbehaving(faults: Faults, clock: Clock, refuse: Refusal, throttled: str) -> Any:
    """A middleware for the faults: hangs and failures happen before the request is served, or,
    `after_change`, once it has been (the change made; its answer held or lost); a request over
    the throttling budget is answered 429 with `Retry-After` and the `throttled` message."""

    async def hold(hang: Hang) -> None:
        faults.held.append(hang)
        hang.arrived.set()
        await hang.released.wait()

    @web.middleware
    async def misbehave(request: web.Request, handler: Handler) -> web.StreamResponse:
        # A request meets the faults queued for it when it arrives.
        hang = take(faults.hangs, request.path)
        failure = take(faults.failures, request.path)
        if hang is not None and not hang.after_change:
            await hold(hang)
        retry_after = faults.throttle_answer(request.method, request.path, clock.now())
        if retry_after is not None:
            if failure is not None:  # a throttled request was not served: the failure waits
                faults.failures.appendleft(failure)
            return refuse(429, throttled, {"Retry-After": str(retry_after)})
        if failure is None or failure.after_change:
            response: web.StreamResponse = await handler(request)
        if hang is not None and hang.after_change:
            await hold(hang)
        if failure is None:
            return response
        headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else None
        return refuse(failure.status, "The service is unavailable.", headers)

    return misbehave


def basic_credentials(header: str) -> tuple[str, str] | None:
    """The user and password of a Basic Authorization header (None when it is not one)."""
    scheme, _, encoded = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user, password


def parsed(text: str) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text

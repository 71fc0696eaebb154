"""JSON request bodies: type, size, syntax and shape, each refused with a clear 4xx."""

import asyncio
from typing import TypeVar

import orjson
from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot.errors import BadRequest, ClientGone, RequestTimeout, UnsupportedMediaType
from bot.validation import NUL_REFUSED, describe_validation_error, nul_character_at

MAX_JSON_BODY = 1024 * 1024

Model = TypeVar("Model", bound=BaseModel)


async def read_body(request: web.Request, *, seconds: float) -> bytes:
    """The request's bytes, within `seconds` (BODY_READ_TIMEOUT_SECONDS); a stall answers 408."""
    try:
        async with asyncio.timeout(seconds):
            return await request.read()
    except TimeoutError:
        raise RequestTimeout(f"The request body did not arrive within {seconds:g} s.") from None
    except ConnectionResetError:
        raise ClientGone() from None


def parse_body(request: web.Request, raw: bytes, model: type[Model]) -> Model:
    """The body as `model`; `raw` was read earlier (aiohttp refuses over MAX_JSON_BODY with 413)."""
    if request.content_type != "application/json":
        raise UnsupportedMediaType("Content-Type must be application/json.")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"Malformed JSON: {exc}") from None
    try:
        body = model.model_validate(data)
    except ValidationError as exc:
        raise BadRequest(describe_validation_error(exc)) from None
    # PostgreSQL text and jsonb cannot hold U+0000; refuse it on both databases alike. Only the
    # fields the model kept are looked at: unknown fields are ignored, whatever they hold. JSON
    # can carry U+0000 only as the escape `\u0000`: a body without one needs no walk.
    if b"\\u0000" in raw:
        where = nul_character_at(body.model_dump(by_alias=True), "")
        if where is not None:
            raise BadRequest(f"{where or 'body'}: {NUL_REFUSED}")
    return body

"""JSON request bodies: type, size, syntax and shape, each refused with a clear 4xx."""

import asyncio
from typing import TypeVar

import orjson
from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot.errors import BadRequest, RequestTimeout, UnsupportedMediaType

MAX_JSON_BODY = 1024 * 1024
MAX_REPORTED_ERRORS = 3
NUL_REFUSED = "must not contain the NUL character (U+0000)"

Model = TypeVar("Model", bound=BaseModel)


class ClientGone(Exception):
    """The client closed the connection before its body arrived: nobody is left to answer."""


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


def describe_validation_error(exc: ValidationError) -> str:
    """`field: what is wrong` for the first few problems, in the request's own field names."""
    parts = []
    for error in exc.errors(include_url=False)[:MAX_REPORTED_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def nul_character_at(value: object, where: str) -> str | None:
    """The dotted path of the first string (value or key) holding U+0000, else None."""
    if isinstance(value, str):
        return where if "\x00" in value else None
    if isinstance(value, dict):
        items: list[tuple[object, object]] = list(value.items())
    elif isinstance(value, list | tuple):
        items = list(enumerate(value))
    else:
        return None
    for key, item in items:
        path = f"{where}.{key}" if where else str(key)
        if isinstance(key, str) and "\x00" in key:
            return path
        found = nul_character_at(item, path)
        if found is not None:
            return found
    return None

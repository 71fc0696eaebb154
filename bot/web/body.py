"""JSON request bodies: type, size, syntax and shape, each refused with a clear 4xx."""

from typing import TypeVar

import orjson
from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot.errors import BadRequest, UnsupportedMediaType

MAX_JSON_BODY = 1024 * 1024
MAX_REPORTED_ERRORS = 3

Model = TypeVar("Model", bound=BaseModel)


def parse_body(request: web.Request, raw: bytes, model: type[Model]) -> Model:
    """The body as `model`; `raw` was read earlier (aiohttp refuses over MAX_JSON_BODY with 413)."""
    if request.content_type != "application/json":
        raise UnsupportedMediaType("Content-Type must be application/json.")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"Malformed JSON: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BadRequest(describe_validation_error(exc)) from None


def describe_validation_error(exc: ValidationError) -> str:
    """`field: what is wrong` for the first few problems, in the request's own field names."""
    parts = []
    for error in exc.errors(include_url=False)[:MAX_REPORTED_ERRORS]:
        where = ".".join(str(part) for part in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)

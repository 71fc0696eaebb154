"""OpenAPI 3.1, generated from the declared routes and the models the handlers validate with."""

import re
from functools import cached_property
from typing import Any

import orjson
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from bot.errors import MUST_RUN_IN_TEAMS
from bot.odata.parse import MAX_LENGTH as MAX_FILTER_LENGTH
from bot.schemas import CodedErrorBody, CollectionPage, ErrorBody
from bot.web.routing import (
    CHANNEL_HEADER,
    COOKIE,
    ENTITY_HEADER,
    MAX_HEADER_LENGTH,
    TEAM_HEADER,
    Access,
    Endpoint,
)

REF = "#/components/schemas/{model}"
HEADER_SCHEMA = {"type": "string", "maxLength": MAX_HEADER_LENGTH}
SELECTION = "Selection"  # suffix of a collection element's schema, as `$select` may cut it
PATH_PARAM = re.compile(r"{(\w+)(?::[^}]*)?}")
STATUS_TEXT = {
    200: "OK",
    201: "Created",
    204: "No Content",
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    500: "Internal error",
    502: "Bad gateway",
    503: "Unavailable",
}

# Text the service refuses when it is empty or all blanks (docs/api.md, Lists).
_TEXT = {"type": "string", "minLength": 1, "pattern": r"\S"}

# The list query options (docs/api.md, Lists), taken by every route that answers a CollectionPage.
QUERY_OPTIONS: list[tuple[str, dict[str, Any], str]] = [
    (
        "$filter",
        {**_TEXT, "maxLength": MAX_FILTER_LENGTH},
        "A condition, e.g. `status eq 'Active' and dueDate lt 2026-12-01`",
    ),
    ("$orderby", _TEXT, "Comma-separated keys, each optionally `asc` or `desc`"),
    ("$top", {"type": "integer", "minimum": 0}, "Page size: 100 by default, at most 1000"),
    ("$skip", {"type": "integer", "minimum": 0}, "Rows to skip"),
    ("$count", {"type": "boolean"}, "Whether to include `@odata.count`"),
    ("$select", _TEXT, "Comma-separated fields to keep; `_id` is always kept"),
    ("$skiptoken", _TEXT, "Where a page starts, as `@odata.nextLink` gives it"),
]
# A route that names one of them among its own query parameters reads it the same way.
_OPTION_SCHEMAS = {name: schema for name, schema, _text in QUERY_OPTIONS}


class OpenApiDocument:
    """The document `/openapi.json` serves, built when first asked for: few requests ask, and
    building it costs more than the rest of an app's start."""

    def __init__(self, endpoints: list[Endpoint], *, title: str, version: str, server: str):
        self._endpoints = endpoints
        self._info = {"title": title, "version": version, "server": server}

    @cached_property
    def body(self) -> bytes:
        return orjson.dumps(openapi_document(self._endpoints, **self._info))


def openapi_document(endpoints: list[Endpoint], *, title: str, version: str, server: str) -> dict:
    models: list[tuple[type[BaseModel], Any]] = [
        (ErrorBody, "serialization"),
        (CodedErrorBody, "serialization"),
    ]
    for endpoint in endpoints:
        if endpoint.body:
            models.append((endpoint.body, "validation"))
        if endpoint.form:
            models.append((endpoint.form, "validation"))
        if endpoint.response:
            models.append((endpoint.response, "serialization"))
    keys, schemas = models_json_schema(models, ref_template=REF)
    components = schemas.get("$defs", {})
    # Each page once, in route order, so the document comes out the same every time.
    for page in dict.fromkeys(page for endpoint in endpoints if (page := _page(endpoint))):
        _let_select_cut_values(components, _ref_name(keys[(page, "serialization")]))
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        path = PATH_PARAM.sub(r"{\1}", endpoint.path)
        paths.setdefault(path, {})[endpoint.method.lower()] = _operation(endpoint, keys)
    return {
        "openapi": "3.1.0",
        "info": {"title": title, "version": version},
        "servers": [{"url": server}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": COOKIE},
                "apiToken": {"type": "http", "scheme": "bearer"},
            },
        },
    }


def _operation(endpoint: Endpoint, keys: dict) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "summary": endpoint.summary,
        "operationId": endpoint.handler.__name__,
        "tags": [endpoint.tag],
        "responses": _responses(endpoint, keys),
    }
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in PATH_PARAM.findall(endpoint.path)
    ] + _context_headers(endpoint.access)
    parameters += [
        {"name": name, "in": "header", "required": False, "schema": HEADER_SCHEMA}
        for name in endpoint.headers
    ]
    parameters += [
        {
            "name": name,
            "in": "query",
            "required": False,
            "schema": _OPTION_SCHEMAS.get(name, {"type": "string"}),
            "description": text,
        }
        for name, text in endpoint.query
    ]
    if _page(endpoint):
        parameters += [
            {"name": name, "in": "query", "required": False, "schema": schema, "description": text}
            for name, schema, text in QUERY_OPTIONS
        ]
    if parameters:
        operation["parameters"] = parameters
    if endpoint.access is not Access.PUBLIC:
        operation["security"] = [{"session": []}, {"apiToken": []}]
    if endpoint.body:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": keys[(endpoint.body, "validation")]}},
        }
    if endpoint.form:
        schema = keys[(endpoint.form, "validation")]
        operation["requestBody"] = {
            "required": True,
            "content": {"multipart/form-data": {"schema": schema}},
        }
    return operation


def _responses(endpoint: Endpoint, keys: dict) -> dict[str, Any]:
    success: dict[str, Any] = {"description": STATUS_TEXT.get(endpoint.status, "Success")}
    if endpoint.response:
        schema = keys[(endpoint.response, "serialization")]
        success["content"] = {endpoint.media_type: {"schema": schema}}
    responses = {str(endpoint.status): success}
    for status in sorted(set(endpoint.errors) | _implied_errors(endpoint)):
        responses[str(status)] = _error(status, endpoint)
    return responses


def _implied_errors(endpoint: Endpoint) -> set[int]:
    errors = {500}
    if endpoint.access is not Access.PUBLIC:
        errors.add(401)
    if endpoint.access in (Access.CHANNEL, Access.PERSONAL):
        errors.add(400)
    if endpoint.access is Access.CHANNEL:
        errors.add(403)
    if endpoint.body or endpoint.form:
        errors |= {400, 413, 415}
    return errors


def _error(status: int, endpoint: Endpoint) -> dict[str, Any]:
    error = {"$ref": REF.format(model="ErrorBody")}
    schema: dict[str, Any] = error
    if status == 400 and endpoint.access in (Access.CHANNEL, Access.PERSONAL):
        coded = {"$ref": REF.format(model="CodedErrorBody")}
        schema = {
            "oneOf": [error, coded],
            "description": f"`{MUST_RUN_IN_TEAMS}` when the context headers are missing",
        }
    return {
        "description": STATUS_TEXT.get(status, "Error"),
        "content": {"application/json": {"schema": schema}},
    }


def _context_headers(access: Access) -> list[dict[str, Any]]:
    names = {Access.CHANNEL: [TEAM_HEADER, CHANNEL_HEADER], Access.PERSONAL: [ENTITY_HEADER]}
    return [
        {"name": name, "in": "header", "required": True, "schema": HEADER_SCHEMA}
        for name in names.get(access, [])
    ]


def _page(endpoint: Endpoint) -> type[CollectionPage] | None:
    """The OData collection the route answers, if it answers one."""
    response = endpoint.response
    return response if response and issubclass(response, CollectionPage) else None


def _ref_name(ref: dict[str, str]) -> str:
    return ref["$ref"].rsplit("/", 1)[1]


def _let_select_cut_values(components: dict[str, Any], page: str) -> None:
    """A page's `value` elements as `$select` may cut them: every field optional but `_id`."""
    items = components[page]["properties"]["value"]["items"]
    element = _ref_name(items)
    components[element + SELECTION] = {
        **components[element],
        "title": element + SELECTION,
        "required": ["_id"],
        "description": f"A {element}: every field, or those `$select` names and `_id`",
    }
    items["$ref"] = REF.format(model=element + SELECTION)

"""Declared routes: each names its access level and its models, so the frame can authenticate,
resolve the channel, parse the body, run one transaction, render, and describe it in OpenAPI."""

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson
from aiohttp import web
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from bot import logs
from bot.auth import service as auth
from bot.db.uow import Actor, ChannelScope, UnitOfWork, unit_of_work
from bot.errors import BadRequest, missing_context
from bot.keys import CLOCK, LIST_CACHE, SESSIONS, SETTINGS
from bot.odata.model import EntitySet
from bot.settings import Settings
from bot.web.body import parse_body, read_body
from bot.web.keys import LISTS_IN_FLIGHT

COOKIE = "graphNodeCookie"
TEAM_HEADER = "x-svc-teamid"
CHANNEL_HEADER = "x-svc-channelId"
ENTITY_HEADER = "x-svc-entityId"
MAX_HEADER_LENGTH = 255  # the context headers' database columns


class Access(StrEnum):
    PUBLIC = "public"  # no credentials
    USER = "user"  # a session cookie or Bearer token
    CHANNEL = "channel"  # and the Teams team/channel headers of a standard channel, as a member
    PERSONAL = "personal"  # and the personal tab's x-svc-entityId


@dataclass(slots=True)
class Call:
    """What a handler gets: the request, its unit of work, and the parsed body."""

    request: web.Request
    uow: UnitOfWork
    settings: Settings
    body: Any = None
    entity_id: str | None = None

    @property
    def actor(self) -> Actor:
        assert self.uow.actor is not None, "only for routes that require a user"
        return self.uow.actor

    @property
    def channel(self) -> ChannelScope:
        assert self.uow.channel is not None, "only for channel routes"
        return self.uow.channel

    @property
    def credentials(self) -> str | None:
        return credentials_of(self.request)

    @asynccontextmanager
    async def unit(self, *, write: bool = True) -> AsyncIterator[UnitOfWork]:
        """A unit of work of its own, for the same caller and channel: a route with a `form`
        reads its body outside any transaction, between units it opens itself."""
        app = self.request.app
        async with unit_of_work(
            app[SESSIONS], app[CLOCK], write=write, cache=app[LIST_CACHE]
        ) as uow:
            uow.actor, uow.channel = self.uow.actor, self.uow.channel
            yield uow


Handler = Callable[[Call], Awaitable[Any]]


def named(name: str, handler: Handler) -> Handler:
    """The handler under its own name: the name is the route's OpenAPI operationId (a route
    declared once per kind or scale gets a name per declaration)."""

    async def route(call: Call) -> Any:
        return await handler(call)

    route.__name__ = name
    return route


@dataclass(frozen=True, slots=True)
class Endpoint:
    method: str
    path: str
    handler: Handler
    access: Access
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    status: int = 200
    response: type[BaseModel] | None = None
    errors: tuple[int, ...] = ()
    headers: tuple[str, ...] = ()  # optional request headers the handler reads
    odata_set: EntitySet | None = None  # the list this GET serves, described by $metadata
    query: tuple[tuple[str, str], ...] = ()  # optional query parameters it reads: name, what
    capped: bool = False  # a list whose cost the caller chooses: `bot.web.fairness`
    # A multipart form the handler streams itself (an upload): the frame authorizes in a unit
    # that only reads and ends it first, so no transaction waits on the client's bytes.
    form: type[BaseModel] | None = None
    # A handler that waits on Microsoft Teams: the frame authorizes (and parses the body) in a
    # unit that only reads and ends it first; the handler opens its own units (`Call.unit`), so
    # no transaction stays open while Teams answers.
    apart: bool = False
    media_type: str = "application/json"  # what a success answers (a stream's text/event-stream)


@dataclass
class RouteTable:
    """The routes of one area; `bot.app` installs every table, OpenAPI reads them."""

    tag: str
    endpoints: list[Endpoint] = field(default_factory=list)

    def route(
        self,
        method: str,
        path: str,
        *,
        access: Access,
        summary: str,
        body: type[BaseModel] | None = None,
        status: int = 200,
        response: type[BaseModel] | None = None,
        errors: tuple[int, ...] = (),
        headers: tuple[str, ...] = (),
        odata_set: EntitySet | None = None,
        query: tuple[tuple[str, str], ...] = (),
        capped: bool = False,
        form: type[BaseModel] | None = None,
        apart: bool = False,
        media_type: str = "application/json",
    ) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            self.endpoints.append(
                Endpoint(
                    method,
                    path,
                    handler,
                    access,
                    summary,
                    self.tag,
                    body,
                    status,
                    response,
                    errors,
                    headers,
                    odata_set,
                    query,
                    capped,
                    form,
                    apart,
                    media_type,
                )
            )
            return handler

        return register


def install(app: web.Application, tables: list[RouteTable]) -> list[Endpoint]:
    endpoints = [endpoint for table in tables for endpoint in table.endpoints]
    for endpoint in endpoints:
        app.router.add_route(endpoint.method, endpoint.path, _serve(endpoint))
    return endpoints


def credentials_of(request: web.Request) -> str | None:
    """The session cookie, else a Bearer token."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(COOKIE) or None


def _serve(endpoint: Endpoint) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    async def serve(request: web.Request) -> web.StreamResponse:
        app = request.app
        seconds = app[SETTINGS].body_read_timeout_seconds
        # Read the bytes before the transaction so a slow client never holds a connection.
        raw = await read_body(request, seconds=seconds) if endpoint.body else b""
        write = request.method not in ("GET", "HEAD")
        credentials = credentials_of(request) if endpoint.capped else None
        if endpoint.form is not None or endpoint.apart:
            return await _streamed(endpoint, request, raw)
        async with app[LISTS_IN_FLIGHT].slot(credentials):
            return await _served(endpoint, request, raw, write)

    serve.__name__ = endpoint.handler.__name__
    return serve


async def _served(
    endpoint: Endpoint, request: web.Request, raw: bytes, write: bool
) -> web.StreamResponse:
    app = request.app
    async with unit_of_work(app[SESSIONS], app[CLOCK], write=write, cache=app[LIST_CACHE]) as uow:
        call = await _call(endpoint, request, raw, uow)
        result = await endpoint.handler(call)
    return _render(endpoint, result)


async def _streamed(endpoint: Endpoint, request: web.Request, raw: bytes) -> web.StreamResponse:
    """A `form` or `apart` route: authorized in a unit that only reads, then the handler,
    outside it."""
    app = request.app
    async with unit_of_work(app[SESSIONS], app[CLOCK], write=False, cache=app[LIST_CACHE]) as uow:
        call = await _call(endpoint, request, raw, uow)
    return _render(endpoint, await endpoint.handler(call))


async def _call(endpoint: Endpoint, request: web.Request, raw: bytes, uow: UnitOfWork) -> Call:
    """The handler's call in `uow`: its caller authorized, its body parsed."""
    call = Call(request=request, uow=uow, settings=request.app[SETTINGS])
    await _authorize(endpoint, call)
    if endpoint.body:
        call.body = parse_body(request, raw, endpoint.body)
    return call


async def _authorize(endpoint: Endpoint, call: Call) -> None:
    """Who calls, and in a channel route where: the unit's actor and channel."""
    uow, request = call.uow, call.request
    if endpoint.access is Access.CHANNEL:
        uow.actor, uow.channel = await _caller_in_channel(uow, request)
    elif endpoint.access is not Access.PUBLIC:
        uow.actor = await auth.authenticate(uow, secret=credentials_of(request))
    if uow.actor is not None:
        channel_id = uow.channel.channel_id if uow.channel else None
        logs.note(user_id=uow.actor.user_id, channel_id=channel_id)
    if endpoint.access is Access.PERSONAL:
        call.entity_id = _required_header(request, ENTITY_HEADER)


async def _caller_in_channel(uow: UnitOfWork, request: web.Request) -> tuple[Actor, ChannelScope]:
    """Who calls and in which channel: one statement, credentials judged before the headers."""
    secret = credentials_of(request)
    team_id = optional_header(request, TEAM_HEADER)
    channel_id = optional_header(request, CHANNEL_HEADER)
    if team_id is None or channel_id is None:
        await auth.authenticate(uow, secret=secret)
        raise missing_context()
    return await auth.authenticate_in_channel(
        uow, secret=secret, team_id=team_id, channel_id=channel_id
    )


def optional_header(request: web.Request, name: str) -> str | None:
    """A context header's value, None when absent or blank; longer than its column, or bytes
    that are not UTF-8 (aiohttp keeps them as lone surrogates, which no column holds): 400."""
    value = request.headers.get(name, "").strip()
    if len(value) > MAX_HEADER_LENGTH:
        raise BadRequest(f"{name}: must be at most {MAX_HEADER_LENGTH} characters")
    if not value.isascii() and not _utf8(value):
        raise BadRequest(f"{name}: must be UTF-8 text")
    return value or None


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _required_header(request: web.Request, name: str) -> str:
    value = optional_header(request, name)
    if value is None:
        raise missing_context()
    return value


def _render(endpoint: Endpoint, result: Any) -> web.StreamResponse:
    if isinstance(result, web.StreamResponse):
        return result
    if endpoint.response is None:
        return web.Response(status=endpoint.status)
    return web.Response(
        body=orjson.dumps(result, default=_jsonable, option=orjson.OPT_PASSTHROUGH_DATETIME),
        status=endpoint.status,
        content_type="application/json",
    )


def _jsonable(value: Any) -> Any:
    """What orjson cannot write itself (models by alias, datetimes as pydantic writes them):
    handlers that return JSON-ready dicts, as lists do, skip pydantic's walk entirely."""
    return to_jsonable_python(value, by_alias=True)

"""`create_app(settings)`: builds the web application; every long-lived resource in cleanup_ctx."""

from collections.abc import AsyncIterator
from importlib.metadata import version

import aiohttp
import orjson
from aiohttp import web

from bot.auth import api as auth_api
from bot.auth.sso import JwksKeys
from bot.clock import Clock, SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.directory import api as directory_api
from bot.fields import api as fields_api
from bot.items import api as items_api
from bot.items.versions import VersionedCache
from bot.keys import CLOCK, ENGINE, HTTP, LIST_CACHE, OPENAPI, SESSIONS, SETTINGS, SSO_KEYS
from bot.me import api as me_api
from bot.settings import Settings
from bot.web import meta
from bot.web.body import MAX_JSON_BODY
from bot.web.docs import install_docs
from bot.web.errors import add_request_id, error_middleware
from bot.web.openapi import openapi_document
from bot.web.routing import RouteTable, install

MAX_REQUEST_LINE = 32 * 1024
ROUTE_TABLES: list[RouteTable] = [
    meta.routes,
    auth_api.routes,
    directory_api.routes,
    items_api.routes,
    fields_api.routes,
    me_api.routes,
]


def create_app(settings: Settings, *, clock: Clock | None = None) -> web.Application:
    app = web.Application(
        middlewares=[error_middleware],
        client_max_size=MAX_JSON_BODY,
        # A 2 KB $filter of non-ASCII text is several times longer percent-encoded; aiohttp's
        # default 8 KiB request line would refuse it in plain text before the app could answer.
        handler_args={"max_line_size": MAX_REQUEST_LINE},
    )
    app[SETTINGS] = settings
    app[CLOCK] = clock or SystemClock()
    app[LIST_CACHE] = VersionedCache()
    endpoints = install(app, ROUTE_TABLES)
    document = openapi_document(
        endpoints,
        title="Teams tracker API",
        version=version("teams-tracker"),
        server=settings.public_url,
    )
    app[OPENAPI] = orjson.dumps(document)
    app.router.add_get("/openapi.json", meta.openapi_json)
    install_docs(app)
    app.on_response_prepare.append(add_request_id)
    app.cleanup_ctx.extend([_database, _http_client])
    return app


async def _database(app: web.Application) -> AsyncIterator[None]:
    engine = create_engine(app[SETTINGS].database_url)
    try:
        await migrate(engine)
        app[ENGINE] = engine
        app[SESSIONS] = session_factory(engine)
        yield
    finally:
        await engine.dispose()


async def _http_client(app: web.Application) -> AsyncIterator[None]:
    async with aiohttp.ClientSession() as http:
        app[HTTP] = http
        app[SSO_KEYS] = JwksKeys(http, app[SETTINGS].sso_jwks_url, app[CLOCK])
        yield

"""Liveness, readiness and the OpenAPI document."""

import logging

from aiohttp import web
from pydantic import BaseModel
from sqlalchemy.exc import SQLAlchemyError

from bot.db.migrate import current_revision, head_revision
from bot.keys import OPENAPI
from bot.web.routing import Access, Call, RouteTable

log = logging.getLogger(__name__)

routes = RouteTable(tag="service")


class HealthOut(BaseModel):
    status: str


class ReadyOut(BaseModel):
    status: str
    revision: str | None


@routes.route(
    "GET", "/healthz", access=Access.PUBLIC, summary="The process is alive", response=HealthOut
)
async def healthz(_call: Call) -> HealthOut:
    return HealthOut(status="ok")


@routes.route(
    "GET",
    "/readyz",
    access=Access.PUBLIC,
    response=ReadyOut,
    errors=(503,),
    summary="The database answers and its schema is at the latest migration",
)
async def readyz(call: Call) -> ReadyOut:
    try:
        revision = await call.uow.run_sync(current_revision)
    except (SQLAlchemyError, OSError) as exc:
        log.warning("readiness: database unreachable: %s", exc)
        raise web.HTTPServiceUnavailable(reason="Database unreachable.") from None
    if revision != head_revision():
        raise web.HTTPServiceUnavailable(reason=f"Database schema at {revision}, not at head.")
    return ReadyOut(status="ready", revision=revision)


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI], content_type="application/json")

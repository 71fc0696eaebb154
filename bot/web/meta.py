"""Liveness, readiness and the OpenAPI document."""

import logging

from aiohttp import web
from pydantic import BaseModel

from bot.db.failures import DATABASE_ERRORS
from bot.db.migrate import current_revision, head_revision
from bot.events import pump
from bot.keys import WORKER
from bot.web.keys import OPENAPI
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
    summary="The database answers, its schema is at the latest migration, and where this "
    "process runs the jobs worker, it turns and the pending events do not pile up",
)
async def readyz(call: Call) -> ReadyOut:
    """Two indexed statements: the schema's revision, the oldest unprocessed pending event."""
    settings = call.settings
    try:
        revision = await call.uow.run_sync(current_revision)
        failing = [] if revision == head_revision() else [f"migrations: at {revision}, not at head"]
        if settings.jobs_poll_seconds > 0:  # this process runs the worker
            failing += await _background_failing(call)
    except DATABASE_ERRORS as exc:
        log.warning("readiness: database unreachable: %s", type(exc).__name__)
        raise web.HTTPServiceUnavailable(reason="Not ready: database unreachable.") from None
    if failing:
        raise web.HTTPServiceUnavailable(reason=f"Not ready: {'; '.join(failing)}.")
    return ReadyOut(status="ready", revision=revision)


async def _background_failing(call: Call) -> list[str]:
    """What is wrong with the background work: the worker stalled, the events piling up."""
    settings, now = call.settings, call.uow.clock.now()
    failing = []
    idle = (now - call.request.app[WORKER].last_turn_at).total_seconds()
    # An idle worker waits a poll between turns (unless a commit wakes it): past that, stalled.
    bound = settings.jobs_poll_seconds + settings.ready_worker_stall_seconds
    if idle > bound:
        failing.append(f"job worker stalled: no turn for {idle:.0f} s (bound {bound:g} s)")
    oldest = await pump.oldest_unprocessed(call.uow)
    waited = 0.0 if oldest is None else (now - oldest).total_seconds()
    if waited > settings.ready_event_backlog_seconds:
        bound = settings.ready_event_backlog_seconds
        failing.append(
            f"event backlog: the oldest pending event waited {waited:.0f} s (bound {bound:g} s)"
        )
    return failing


async def openapi_json(request: web.Request) -> web.Response:
    return web.Response(body=request.app[OPENAPI].body, content_type="application/json")

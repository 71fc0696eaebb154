"""The outermost middleware: each request gets its id and log scope (`bot.logs`), and once it is
answered one access line and its metrics.

The line names the route template, never the raw path or query (a download link's signature
rides in its query), with the status, the latency, and the user and channel once the frame knew
them. Outermost, it sees the status the error middleware answered with.
"""

import asyncio
import logging
import time

from aiohttp import web
from aiohttp.typedefs import Handler

from bot import logs, outcomes
from bot.web.errors import CLIENT_CLOSED_REQUEST
from bot.web.keys import METRICS
from bot.web.requestid import HEADER, REQUEST_ID, choose_request_id

log = logging.getLogger("bot.access")

UNMATCHED = "(unmatched)"  # the route of a 404 or 405: no template, and the path is the client's


@web.middleware
async def access_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    started = time.perf_counter()
    scope = logs.Scope(choose_request_id(request.headers.get(HEADER)))
    request[REQUEST_ID] = scope.request_id
    metrics = request.app.get(METRICS)
    status = 500
    with logs.scoped(scope), outcomes.bound(metrics.outcomes if metrics else None):
        try:
            response = await handler(request)
            status = response.status
            return response
        except web.HTTPException as exc:  # a redirect, which aiohttp answers itself
            status = exc.status
            raise
        except asyncio.CancelledError:
            status = CLIENT_CLOSED_REQUEST
            raise
        finally:
            seconds = time.perf_counter() - started
            route = route_template(request)
            if metrics is not None:
                metrics.observe(request.method, route, status, seconds)
            if log.isEnabledFor(logging.INFO):
                _log_access(request.method, route, status, seconds)


def route_template(request: web.Request) -> str:
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else UNMATCHED


def _log_access(method: str, route: str, status: int, seconds: float) -> None:
    latency_ms = round(seconds * 1000, 1)
    fields = {"method": method, "route": route, "status": status, "latency_ms": latency_ms}
    log.info("%s %s %s %.1f ms", method, route, status, latency_ms, extra={"fields": fields})

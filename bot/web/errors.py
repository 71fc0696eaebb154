"""One middleware: domain errors and surprises out as JSON (docs/api.md, Errors)."""

import logging

import orjson
from aiohttp import web
from aiohttp.typedefs import Handler

from bot.errors import ClientGone, DomainError, PayloadTooLarge, RequestTimeout, TooManyRequests
from bot.web.body import MAX_JSON_BODY

log = logging.getLogger(__name__)

INTERNAL_ERROR = {"error": "Internal error"}
# What the access log shows for a client that left before sending its body (nginx's code): no
# response reaches it, and it is no error of ours.
CLIENT_CLOSED_REQUEST = 499


def json_response(
    payload: object, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    return web.Response(
        body=orjson.dumps(payload), status=status, content_type="application/json", headers=headers
    )


@web.middleware
async def error_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ClientGone:
        log.info("client disconnected while sending %s %s", request.method, request.path)
        return web.Response(status=CLIENT_CLOSED_REQUEST)
    except TooManyRequests as exc:
        return json_response(exc.body(), exc.status, {"Retry-After": str(exc.retry_after)})
    except DomainError as exc:
        response = json_response(exc.body(), exc.status)
        if isinstance(exc, RequestTimeout | PayloadTooLarge):
            response.force_close()  # the rest of the body may still be on its way
        return response
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        # A 405 names the methods the path has (RFC 9110); aiohttp put them in its own headers.
        allow = {"Allow": exc.headers["Allow"]} if "Allow" in exc.headers else None
        return json_response({"error": _http_message(exc, request)}, exc.status, allow)
    except Exception:
        log.exception("unhandled error on %s %s", request.method, request.path)
        return json_response(INTERNAL_ERROR, 500)


def _http_message(exc: web.HTTPException, request: web.Request) -> str:
    if isinstance(exc, web.HTTPRequestEntityTooLarge):
        return f"Request body is larger than the {MAX_JSON_BODY // 1024 // 1024} MiB limit."
    if isinstance(exc, web.HTTPNotFound):
        return f"No such resource: {request.path}"
    if isinstance(exc, web.HTTPMethodNotAllowed):
        return f"Method {request.method} is not allowed on {request.path}."
    return exc.reason

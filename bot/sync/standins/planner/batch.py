"""Graph's JSON batching for the local Planner: `POST /v1.0/$batch` with 1 to 20 requests, each
answered on its own in `responses` (`{id, status, headers, body}`), as Graph documents it. The
reads a pull batches are served: a task and its details (GET); any other request is answered
400 inside the batch (the local Planner writes one request at a time). A failure a test queued
for a request's path (`fail_next(path_part=...)`) is met by that request alone, inside the
batch's answer, with its `Retry-After`; the batch itself is answered 200."""

import re
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.sync.standins.faults import take
from bot.sync.standins.planner import views
from bot.sync.standins.planner.errors import GraphError, not_found
from bot.sync.standins.planner.views import V1

if TYPE_CHECKING:
    from bot.sync.standins.planner.server import PlannerStandin

MOST = 20  # requests Graph takes in one batch
_TASK = re.compile(r"^/planner/tasks/([^/?]+)$")
_DETAILS = re.compile(r"^/planner/tasks/([^/?]+)/details$")


async def serve(standin: "PlannerStandin", request: web.Request) -> web.Response:
    try:
        body = await request.json()
    except ValueError:
        raise GraphError(400, "Invalid batch payload format.", "BadRequest") from None
    asked = body.get("requests") if isinstance(body, dict) else None
    if not isinstance(asked, list) or not asked or not all(_well_formed(r) for r in asked):
        raise GraphError(400, "Invalid batch payload format.", "BadRequest")
    if len(asked) > MOST:
        raise GraphError(
            400, f"The number of requests in a batch cannot exceed {MOST}.", "BadRequest"
        )
    if len({r["id"] for r in asked}) < len(asked):
        raise GraphError(400, "Request ids in a batch must be unique.", "BadRequest")
    return web.json_response({"responses": [_answer(standin, r) for r in asked]})


def _well_formed(asked: Any) -> bool:
    return (
        isinstance(asked, dict)
        and isinstance(asked.get("id"), str)
        and isinstance(asked.get("method"), str)
        and isinstance(asked.get("url"), str)
        and asked["url"].startswith("/")
    )


def _answer(standin: "PlannerStandin", asked: dict[str, Any]) -> dict[str, Any]:
    url = asked["url"].split("?", 1)[0]
    failure = take(standin.faults.failures, V1 + url)
    if failure is not None:
        said = standin.THROTTLED if failure.status == 429 else "The service is unavailable."
        code = "TooManyRequests" if failure.status == 429 else "ServiceNotAvailable"
        headers = {"Retry-After": str(failure.retry_after)} if failure.retry_after else {}
        return _entry(asked, failure.status, GraphError(failure.status, said, code).body(), headers)
    try:
        body, etag = _read(standin, asked["method"].upper(), url)
    except GraphError as refused:
        return _entry(asked, refused.status, refused.body(), {})
    return _entry(asked, 200, body, {"ETag": etag})


def _read(standin: "PlannerStandin", method: str, url: str) -> tuple[dict[str, Any], str]:
    """The entity a GET inside the batch names, and its ETag."""
    details, task = _DETAILS.match(url), _TASK.match(url)
    if method != "GET" or (details is None and task is None):
        raise GraphError(400, f"The local Planner batches reads only: {method} {url}", "BadRequest")
    found = standin.store.tasks.get((details or task).group(1))  # type: ignore[union-attr]
    if found is None:
        raise not_found()
    if details is not None:
        return views.details(found), found.details.etag
    return views.task(found, standin.app_id), found.etag


def _entry(
    asked: dict[str, Any], status: int, body: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any]:
    return {
        "id": asked["id"],
        "status": status,
        "headers": {"Content-Type": "application/json", **headers},
        "body": body,
    }

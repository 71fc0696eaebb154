"""The Graph v1.0 Planner routes the local Planner serves (under `/v1.0`), and its token endpoint
(`/{tenant}/oauth2/v2.0/token`). Writes are checked as Graph checks them: known properties of the
right types, `If-Match` required and current (missing → 400, stale → 412); reads come in JSON
batches too (`batch`)."""

from datetime import datetime
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.sync.standins.planner import batch, views
from bot.sync.standins.planner.errors import GraphError, not_found
from bot.sync.standins.planner.store import Task
from bot.sync.standins.planner.views import V1

if TYPE_CHECKING:
    from bot.sync.standins.planner.server import PlannerStandin

_TASK_WRITABLE = {
    "title": str,
    "bucketId": str,
    "priority": int,
    "percentComplete": int,
    "startDateTime": (str, type(None)),
    "dueDateTime": (str, type(None)),
    "assignments": dict,
}
_DETAILS_WRITABLE = {"description": str, "previewType": str}
_RANGES = {"priority": (0, 10), "percentComplete": (0, 100)}


class Api:
    def __init__(self, standin: "PlannerStandin") -> None:
        self.standin = standin
        self.store = standin.store

    def routes(self) -> list[web.RouteDef]:
        return [
            web.post("/{tenant}/oauth2/v2.0/token", self.standin.issue_token),
            web.get(V1 + "/planner/plans/{plan}", self.plan),
            web.get(V1 + "/planner/plans/{plan}/buckets", self.buckets),
            web.get(V1 + "/planner/plans/{plan}/tasks", self.tasks),
            web.post(V1 + "/planner/tasks", self.create),
            web.get(V1 + "/planner/tasks/{task}", self.task),
            web.patch(V1 + "/planner/tasks/{task}", self.update),
            web.delete(V1 + "/planner/tasks/{task}", self.delete),
            web.get(V1 + "/planner/tasks/{task}/details", self.details),
            web.patch(V1 + "/planner/tasks/{task}/details", self.update_details),
            web.get(V1 + "/users/{user}", self.user),
            web.post(V1 + "/$batch", self.batch),
        ]

    def _plan(self, request: web.Request) -> None:
        if request.match_info["plan"] != self.store.plan_id:
            raise not_found()

    def _task(self, request: web.Request) -> Task:
        found = self.store.tasks.get(request.match_info["task"])
        if found is None:
            raise not_found()
        return found

    async def batch(self, request: web.Request) -> web.Response:
        """Graph's JSON batching (`batch`): the reads a pull sends twenty at a time."""
        return await batch.serve(self.standin, request)

    async def plan(self, request: web.Request) -> web.Response:
        self._plan(request)
        return _json(views.plan(self.store), etag=None)

    async def buckets(self, request: web.Request) -> web.Response:
        self._plan(request)
        value = [views.bucket(self.store, b) for b in self.store.buckets.values()]
        return _json({"@odata.context": f"{views.CONTEXT}#planner/buckets", "value": value})

    async def user(self, request: web.Request) -> web.Response:
        """A directory user by object id (`$select` honoured), as the app may read them."""
        user_id = request.match_info["user"]
        if not self.standin.users_readable:
            raise GraphError(403, "Insufficient privileges.", "Authorization_RequestDenied")
        name = self.standin.users.get(user_id)
        if name is None:
            raise GraphError(
                404, f"Resource '{user_id}' does not exist.", "Request_ResourceNotFound"
            )
        found = {"id": user_id, "displayName": name}
        selected = [s for s in request.query.get("$select", "").split(",") if s]
        if selected:
            found = {k: v for k, v in found.items() if k in selected or k == "id"}
        return _json({"@odata.context": f"{views.CONTEXT}#users/$entity", **found})

    async def tasks(self, request: web.Request) -> web.Response:
        """One page of the plan's tasks; `@odata.nextLink` (with `$skiptoken`) when more follow."""
        self._plan(request)
        start = _skip(request.query.get("$skiptoken"))
        size = self.standin.page_size
        listed = list(self.store.tasks.values())
        body: dict[str, Any] = {
            "@odata.context": f"{views.CONTEXT}#planner/tasks",
            "value": [views.task(t, self.standin.app_id) for t in listed[start : start + size]],
        }
        if start + size < len(listed):
            url = request.url.with_query({"$skiptoken": f"{start + size:08d}"})
            body["@odata.nextLink"] = str(url)
        return _json(body)

    async def task(self, request: web.Request) -> web.Response:
        found = self._task(request)
        return _json(views.task(found, self.standin.app_id), etag=found.etag)

    async def details(self, request: web.Request) -> web.Response:
        found = self._task(request)
        return _json(views.details(found), etag=found.details.etag)

    async def create(self, request: web.Request) -> web.Response:
        values = _body(await request.json(), {**_TASK_WRITABLE, "planId": str})
        if values.get("planId") != self.store.plan_id:
            raise GraphError(400, "The plan id is not valid.", "BadRequest")
        if not str(values.get("title") or "").strip():
            raise GraphError(400, "The title of the task is required.", "BadRequest")
        self._check_bucket(values)
        made = self.store.create(values, by=self.standin.app_id)
        return _json(views.task(made, self.standin.app_id), status=201, etag=made.etag)

    async def update(self, request: web.Request) -> web.Response:
        found = self._task(request)
        values = _body(await request.json(), _TASK_WRITABLE)
        _guard(request, found.etag)
        self._check_bucket(values)
        self.store.update(found, values, by=self.standin.app_id)
        return _written(request, views.task(found, self.standin.app_id), found.etag)

    async def delete(self, request: web.Request) -> web.Response:
        found = self._task(request)
        _guard(request, found.etag)
        del self.store.tasks[found.id]
        return web.Response(status=204)

    async def update_details(self, request: web.Request) -> web.Response:
        found = self._task(request)
        values = _body(await request.json(), _DETAILS_WRITABLE)
        _guard(request, found.details.etag)
        if "description" in values:
            self.store.describe(found, values["description"])
        return _written(request, views.details(found), found.details.etag)

    def _check_bucket(self, values: dict[str, Any]) -> None:
        if "bucketId" in values and values["bucketId"] not in self.store.buckets:
            raise GraphError(400, "The bucket id is not valid.", "BadRequest")


def _body(body: Any, writable: dict[str, Any]) -> dict[str, Any]:
    """The body's properties, each known and of its type (else 400, as Graph answers)."""
    if not isinstance(body, dict):
        raise GraphError(400, "Empty Payload. JSON content expected.", "BadRequest")
    for name, value in body.items():
        kind = writable.get(name)
        if kind is None or not isinstance(value, kind) or isinstance(value, bool):
            raise GraphError(400, f"Invalid value for property '{name}'.", "BadRequest")
        low, high = _RANGES.get(name, (0, 0))
        if name in _RANGES and not low <= value <= high:
            raise GraphError(400, f"Value out of range for property '{name}'.", "BadRequest")
        if name.endswith("DateTime") and value is not None:
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise GraphError(
                    400, f"Invalid date for property '{name}'.", "BadRequest"
                ) from None
        if name == "assignments":
            for assignment in value.values():
                if assignment is not None and (
                    not isinstance(assignment, dict)
                    or assignment.get("@odata.type") != "#microsoft.graph.plannerAssignment"
                ):
                    raise GraphError(400, "Invalid assignment.", "BadRequest")
    return body


def _guard(request: web.Request, etag: str) -> None:
    given = request.headers.get("If-Match")
    if not given:
        raise GraphError(400, "The If-Match header must be specified for this kind of request.")
    if given != etag:
        raise GraphError(
            412, "The request is not valid. The ETag has changed.", "PreconditionFailed"
        )


def _skip(token: str | None) -> int:
    if token is None:
        return 0
    if not token.isdigit():
        raise GraphError(400, "The skip token is not valid.", "BadRequest")
    return int(token)


def _json(body: dict[str, Any], *, status: int = 200, etag: str | None = None) -> web.Response:
    headers = {"ETag": etag} if etag else None
    return web.json_response(body, status=status, headers=headers)


def _written(request: web.Request, body: dict[str, Any], etag: str) -> web.Response:
    """204 as Graph answers a PATCH, or the resource when `Prefer: return=representation`."""
    if "return=representation" in request.headers.get("Prefer", ""):
        return _json(body, etag=etag)
    return web.Response(status=204, headers={"ETag": etag})

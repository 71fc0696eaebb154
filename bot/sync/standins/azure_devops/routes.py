"""The routes the stand-in serves: exactly the description's paths for the subset the connector
uses, each in the api-version the description declares for it."""

import json
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.sync.standins.azure_devops import views
from bot.sync.standins.azure_devops.errors import AdoError, bad_request, not_found
from bot.sync.standins.azure_devops.hooks import new_subscription, shown
from bot.sync.standins.azure_devops.patch import field_values
from bot.sync.standins.azure_devops.process import WorkItemType, find_type
from bot.sync.standins.azure_devops.store import WorkItem, iso
from bot.sync.standins.azure_devops.wiql import parse

if TYPE_CHECKING:
    from bot.sync.standins.azure_devops.server import AzureDevOpsStandin

API = "7.1"
COMMENTS_API = "7.1-preview.4"
BATCH_LIMIT = 200
PATCH_TYPE = "application/json-patch+json"


class Api:
    def __init__(self, standin: "AzureDevOpsStandin") -> None:
        self.s = standin

    def routes(self) -> list[web.RouteDef]:
        wit = "/{org}/{project}/_apis/wit"
        return [
            web.get("/{org}/_apis/projects/{projectId}", self.project),
            web.get(wit + "/workitemtypes/{type}/states", self.states),
            web.get(wit + "/workitemtypes/{type}/fields", self.fields),
            web.post("/{org}/{project}/{team}/_apis/wit/wiql", self.wiql),
            web.post(wit + "/workitemsbatch", self.batch),
            web.get(wit + "/workitems/{ref}", self.read),
            web.patch(wit + "/workitems/{ref}", self.update),
            web.delete(wit + "/workitems/{ref}", self.delete),
            web.post(wit + "/workitems/{ref}", self.create),
            web.get(wit + "/workItems/{workItemId}/comments", self.comments),
            web.post(wit + "/workItems/{workItemId}/comments", self.add_comment),
            web.patch(wit + "/workItems/{workItemId}/comments/{commentId}", self.edit_comment),
            web.delete(wit + "/workItems/{workItemId}/comments/{commentId}", self.delete_comment),
            web.get("/{org}/_apis/hooks/subscriptions", self.subscriptions),
            web.post("/{org}/_apis/hooks/subscriptions", self.subscribe),
            web.get("/{org}/_apis/hooks/subscriptions/{subscriptionId}", self.subscription),
            web.delete("/{org}/_apis/hooks/subscriptions/{subscriptionId}", self.unsubscribe),
        ]

    # Projects and work item types

    async def project(self, request: web.Request) -> web.Response:
        self._check(request, API, project_key="projectId")
        s = self.s
        view: dict[str, Any] = {
            "id": s.project_id,
            "name": s.project,
            "description": "A project of the local Azure DevOps",
            "url": f"{s.org_url}/_apis/projects/{s.project_id}",
            "state": "wellFormed",
            "revision": 1,
            "visibility": "private",
            "lastUpdateTime": "2026-01-01T00:00:00.000Z",
            "defaultTeam": {
                "id": s.team_id,
                "name": s.team,
                "url": f"{s.org_url}/_apis/projects/{s.project_id}/teams/{s.team_id}",
            },
        }
        if request.query.get("includeCapabilities", "").lower() == "true":
            view["capabilities"] = {"processTemplate": {"templateName": "Agile"}}
        return web.json_response(view)

    async def states(self, request: web.Request) -> web.Response:
        self._check(request, API)
        type_ = _type(self.s.store.types, request.match_info["type"])
        states = [{"name": x.name, "color": x.color, "category": x.category} for x in type_.states]
        return web.json_response(views.listed(states))

    async def fields(self, request: web.Request) -> web.Response:
        self._check(request, API)
        type_ = _type(self.s.store.types, request.match_info["type"])
        expand = request.query.get("$expand")
        return web.json_response(
            views.listed(views.type_fields(type_, self.s.org_url, expand=expand))
        )

    # Reading many

    async def wiql(self, request: web.Request) -> web.Response:
        self._check(request, API)
        team = request.match_info["team"].lower()
        if team not in (self.s.team.lower(), self.s.team_id):
            raise AdoError(404, f"The team with id {request.match_info['team']} does not exist.")
        body = await _json(request)
        precise = request.query.get("timePrecision", "").lower() == "true"
        pull = parse(body.get("query") if isinstance(body, dict) else None, time_precision=precise)
        found = self.s.store.query(pull.types, pull.since, pull.area)
        if pull.project.lower() != self.s.project.lower():
            found = []
        top = request.query.get("$top")
        if top is not None:
            if not top.isdigit():
                raise bad_request(f"$top must be a whole number, not {top!r}.")
            found = found[: min(int(top), self.s.wiql_limit)]
        elif len(found) > self.s.wiql_limit:
            raise bad_request(
                "VS402337: The number of work items returned exceeds the size limit of "
                f"{self.s.wiql_limit}. Change the query to return fewer work items.",
                "WorkItemTrackingQueryResultSizeLimitExceededException",
            )
        url = f"{self.s.org_url}/{self.s.project_id}/_apis/wit/workitems/"
        changed = {"referenceName": "System.ChangedDate", "name": "Changed Date"}
        return web.json_response(
            {
                "queryType": "flat",
                "queryResultType": "workItem",
                "asOf": _iso_now(self.s),
                "columns": [{"referenceName": "System.Id", "name": "ID"}],
                "sortColumns": [
                    {"field": changed, "descending": False},
                    {"field": {"referenceName": "System.Id", "name": "ID"}, "descending": False},
                ],
                "workItems": [{"id": item.id, "url": f"{url}{item.id}"} for item in found],
            }
        )

    async def batch(self, request: web.Request) -> web.Response:
        self._check(request, API)
        body = await _json(request)
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not ids or not all(isinstance(i, int) for i in ids):
            raise bad_request("VS402334: ids must be a non-empty list of work item ids.")
        if len(ids) > BATCH_LIMIT:
            raise bad_request(
                f"VS402335: The maximum number of work items per request is {BATCH_LIMIT}; "
                f"{len(ids)} were asked for."
            )
        fields = body.get("fields")
        expand = body.get("$expand")
        if fields is not None and expand not in (None, "none"):
            raise bad_request("The expand parameter can not be used with the fields parameter.")
        omit = body.get("errorPolicy") == "omit"
        shown: list[dict[str, Any] | None] = []
        for item_id in ids:
            item = self.s.store.items.get(item_id)
            if item is None:
                if not omit:
                    raise not_found(item_id)
                shown.append(None)
                continue
            shown.append(
                views.work_item(
                    item,
                    self.s.org_url,
                    self.s.project_id,
                    fields=fields,
                    links=expand in ("links", "all"),
                )
            )
        return web.json_response(views.listed(shown))

    # One work item

    async def read(self, request: web.Request) -> web.Response:
        self._check(request, API)
        item = self.s.store.get(_id(request.match_info["ref"]))
        fields = request.query.get("fields")
        wanted = fields.split(",") if fields else None
        return self._item(item, fields=wanted)

    async def create(self, request: web.Request) -> web.Response:
        self._check(request, API)
        ref = request.match_info["ref"]
        if not ref.startswith("$"):
            raise web.HTTPMethodNotAllowed("POST", ["GET", "PATCH", "DELETE"])
        type_ = _type(self.s.store.types, ref[1:])
        values = field_values(await _patch(request), None)
        return self._item(self.s.store.create(type_, values, self.s.caller(request)))

    async def update(self, request: web.Request) -> web.Response:
        self._check(request, API)
        item = self.s.store.get(_id(request.match_info["ref"]))
        values = field_values(await _patch(request), item)
        return self._item(self.s.store.update(item.id, values, self.s.caller(request)))

    async def delete(self, request: web.Request) -> web.Response:
        self._check(request, API)
        destroy = request.query.get("destroy", "").lower() == "true"
        item = self.s.store.delete(_id(request.match_info["ref"]), destroy=destroy)
        return web.json_response(
            {
                "id": item.id,
                "code": 200,
                "deletedBy": str(self.s.caller(request)),
                "deletedDate": _iso_now(self.s),
                "name": item.fields.get("System.Title", ""),
                "project": self.s.project,
                "type": item.type.name,
                "url": f"{self.s.org_url}/{self.s.project_id}/_apis/wit/recyclebin/{item.id}",
            }
        )

    # Comments

    async def comments(self, request: web.Request) -> web.Response:
        self._check(request, COMMENTS_API)
        item = self.s.store.get(_id(request.match_info["workItemId"]))
        notes = list(item.comments)
        ids = request.query.get("ids")
        if ids is not None:
            wanted = {_id(x) for x in ids.split(",") if x.strip()}
            notes = [note for note in notes if note.id in wanted]
        if request.query.get("order", "asc").lower() == "desc":
            notes.reverse()
        start = _id(request.query.get("continuationToken", "0"))
        top = _id(request.query.get("$top", "200"))
        page = notes[start : start + top]
        view: dict[str, Any] = {
            "totalCount": len(item.comments),
            "count": len(page),
            "comments": [views.comment(n, self.s.org_url, self.s.project_id) for n in page],
        }
        if start + top < len(notes):
            view["continuationToken"] = str(start + top)
        return web.json_response(view)

    async def add_comment(self, request: web.Request) -> web.Response:
        self._check(request, COMMENTS_API)
        body = await _json(request)
        text = body.get("text") if isinstance(body, dict) else None
        if not isinstance(text, str):
            raise bad_request("The comment needs a text.")
        note = self.s.store.add_comment(
            _id(request.match_info["workItemId"]), text, self.s.caller(request)
        )
        return web.json_response(views.comment(note, self.s.org_url, self.s.project_id))

    async def edit_comment(self, request: web.Request) -> web.Response:
        self._check(request, COMMENTS_API)
        body = await _json(request)
        text = body.get("text") if isinstance(body, dict) else None
        if not isinstance(text, str):
            raise bad_request("The comment needs a text.")
        note = self.s.store.edit_comment(
            _id(request.match_info["workItemId"]),
            _id(request.match_info["commentId"]),
            text,
            self.s.caller(request),
        )
        return web.json_response(views.comment(note, self.s.org_url, self.s.project_id))

    async def delete_comment(self, request: web.Request) -> web.Response:
        self._check(request, COMMENTS_API)
        self.s.store.delete_comment(
            _id(request.match_info["workItemId"]),
            _id(request.match_info["commentId"]),
            self.s.caller(request),
        )
        return web.Response(status=200)

    # Service hooks

    async def subscriptions(self, request: web.Request) -> web.Response:
        self._check(request, API, hooks=True)
        found = list(self.s.subscriptions.values())
        for name in ("publisherId", "eventType", "consumerId", "consumerActionId"):
            if request.query.get(name):
                found = [x for x in found if x.get(name) == request.query[name]]
        return web.json_response(views.listed([shown(x, self.s.org_url) for x in found]))

    async def subscribe(self, request: web.Request) -> web.Response:
        self._check(request, API, hooks=True)
        made = new_subscription(
            await _json(request),
            project_id=self.s.project_id,
            by=self.s.caller(request),
            at=self.s.store.stamp(),
        )
        self.s.subscriptions[made["id"]] = made
        return web.json_response(shown(made, self.s.org_url))

    async def subscription(self, request: web.Request) -> web.Response:
        self._check(request, API, hooks=True)
        return web.json_response(shown(self._subscription(request), self.s.org_url))

    async def unsubscribe(self, request: web.Request) -> web.Response:
        self._check(request, API, hooks=True)
        del self.s.subscriptions[self._subscription(request)["id"]]
        return web.Response()  # 200 with no body, as the description declares

    def _subscription(self, request: web.Request) -> dict[str, Any]:
        found = self.s.subscriptions.get(request.match_info["subscriptionId"])
        if found is None:
            raise AdoError(
                404, f"VS1050008: Subscription {request.match_info['subscriptionId']} not found."
            )
        return found

    # Shared

    def _check(
        self,
        request: web.Request,
        version: str,
        *,
        project_key: str = "project",
        hooks: bool = False,
    ) -> None:
        """The organization, the project (by name or id) and the api-version; the caller's
        permission for service hooks."""
        if request.match_info["org"] != self.s.organization:
            raise AdoError(404, f"The organization {request.match_info['org']} was not found.")
        project = request.match_info.get(project_key)
        known = (self.s.project.lower(), self.s.project_id)
        if project is not None and project.lower() not in known:
            raise AdoError(
                404,
                f"TF200016: The following project does not exist: {project}. Verify that the name "
                "of the project is correct and that the project exists on the specified server.",
                "ProjectDoesNotExistWithNameException",
            )
        given = request.query.get("api-version")
        if given is None:
            raise bad_request(
                f'No api-version was supplied for the "{request.method}" request. The version '
                "must be supplied as a query parameter.",
                "VssVersionNotSpecifiedException",
            )
        if given != version:
            raise bad_request(
                f"The requested REST API version of {given} is not the one this route takes "
                f"({version}).",
                "VssVersionOutOfRangeException",
            )
        if hooks and not self.s.may_use_hooks(request):
            raise AdoError(
                403,
                "Access denied: the personal access token lacks the permission to manage "
                "service hook subscriptions.",
                "UnauthorizedRequestException",
            )

    def _item(self, item: WorkItem, *, fields: list[str] | None = None) -> web.Response:
        return web.json_response(
            views.work_item(item, self.s.org_url, self.s.project_id, fields=fields)
        )


def _type(types: dict[str, WorkItemType], name: str) -> WorkItemType:
    found = find_type(types, name)
    if found is None:
        raise AdoError(
            404,
            f"VS402323: Work item type {name} does not exist.",
            "WorkItemTypeNotFoundException",
        )
    return found


def _id(text: str) -> int:
    if not text.strip().isdigit():
        raise bad_request(f"'{text}' is not a valid work item id.")
    return int(text)


def _iso_now(standin: "AzureDevOpsStandin") -> str:
    return iso(standin.clock.now())


async def _json(request: web.Request) -> Any:
    if request.content_type != "application/json":
        raise AdoError(415, f"This route takes application/json, not {request.content_type}.")
    return await _body(request)


async def _patch(request: web.Request) -> Any:
    if request.content_type != PATCH_TYPE:
        raise AdoError(
            415,
            f"VS403373: Work item changes take {PATCH_TYPE}, not {request.content_type}.",
        )
    return await _body(request)


async def _body(request: web.Request) -> Any:
    try:
        return json.loads(await request.text() or "null")
    except json.JSONDecodeError:
        raise bad_request("The request body is not valid JSON.") from None

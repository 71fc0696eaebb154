"""The REST v3 routes the stand-in serves: the description's paths for the subset the connector
uses, refusing what Jira refuses (unknown fields, a transition not offered, bad JQL) with its
`ErrorCollection`."""

import base64
from datetime import date
from typing import TYPE_CHECKING, Any

from aiohttp import web

from bot.sync.standins.jira import jql, views
from bot.sync.standins.jira.store import ISSUE_TYPES, PRIORITIES, Comment, Issue

if TYPE_CHECKING:
    from bot.sync.standins.jira.server import JiraStandin

API = "/rest/api/3"
EDITABLE = frozenset({"summary", "description", "priority", "assignee", "duedate"})


class JiraError(Exception):
    def __init__(self, status: int, *messages: str, fields: dict[str, str] | None = None) -> None:
        super().__init__(status, messages)
        self.status, self.messages, self.fields = status, messages, fields

    def response(self, headers: dict[str, str] | None = None) -> web.Response:
        return web.json_response(
            views.errors(self.messages, self.fields), status=self.status, headers=headers
        )


class Api:
    def __init__(self, standin: "JiraStandin") -> None:
        self.s = standin

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get(API + "/myself", self.myself),
            web.get(API + "/project/{key}", self.project),
            web.get(API + "/project/{key}/statuses", self.statuses),
            web.post(API + "/search/jql", self.search),
            web.post(API + "/issue", self.create),
            web.get(API + "/issue/{key}", self.read),
            web.put(API + "/issue/{key}", self.update),
            web.delete(API + "/issue/{key}", self.delete),
            web.get(API + "/issue/{key}/transitions", self.transitions),
            web.post(API + "/issue/{key}/transitions", self.transition),
            web.get(API + "/issue/{key}/comment", self.comments),
            web.post(API + "/issue/{key}/comment", self.add_comment),
            web.put(API + "/issue/{key}/comment/{id}", self.edit_comment),
            web.delete(API + "/issue/{key}/comment/{id}", self.delete_comment),
            web.get(API + "/user/search", self.user_search),
        ]

    # Account and project

    async def myself(self, request: web.Request) -> web.Response:
        me = self.s.caller(request)
        return web.json_response(views.user(self.s.base_url, me, time_zone=self.s.time_zone))

    async def project(self, request: web.Request) -> web.Response:
        self._project(request)
        return web.json_response(self.s.project_view())

    async def statuses(self, request: web.Request) -> web.Response:
        self._project(request)
        base, shown = self.s.base_url, [views.status(self.s.base_url, s) for s in self.s.statuses]
        return web.json_response(
            [{**views.issue_type(base, name), "statuses": shown} for name in ISSUE_TYPES]
        )

    def _project(self, request: web.Request) -> None:
        key = request.match_info["key"]
        if key not in (self.s.project, self.s.project_id):
            raise JiraError(404, f"No project could be found with key '{key}'.")

    # Issues

    async def search(self, request: web.Request) -> web.Response:
        body = await _json(request)
        try:
            tests, order = jql.parse(str(body.get("jql") or ""), zone=self.s.zone)
        except jql.JqlError as refused:
            raise JiraError(400, str(refused)) from None
        found = jql.sort([i for i in self.s.issues if all(t(i) for t in tests)], order)
        start = _offset(body.get("nextPageToken"))
        size = min(int(body.get("maxResults") or 50), self.s.page_limit)
        page = found[start : start + size]
        answer: dict[str, Any] = {
            "issues": [self.s.issue_view(i, body.get("fields")) for i in page],
            "isLast": start + size >= len(found),
        }
        if not answer["isLast"]:
            answer["nextPageToken"] = base64.urlsafe_b64encode(f"{start + size}".encode()).decode()
        return web.json_response(answer)

    async def read(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        wanted = request.query.get("fields")
        return web.json_response(self.s.issue_view(issue, wanted.split(",") if wanted else None))

    async def create(self, request: web.Request) -> web.Response:
        given = dict((await _json(request)).get("fields") or {})
        project = (given.pop("project", None) or {}).get("key")
        if project != self.s.project:
            raise JiraError(400, fields={"project": "Specify a valid project ID or key"})
        type_name = (given.pop("issuetype", None) or {}).get("name")
        if type_name not in ISSUE_TYPES:
            raise JiraError(400, fields={"issuetype": "Specify an issue type"})
        summary = given.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            raise JiraError(400, fields={"summary": "You must specify a summary of the issue."})
        values = self._values(given)
        issue = self.s.store.create(type_name, summary, notify=False)
        self.s.store.change(issue, values, notify=False)
        issue.updated = issue.created
        self.s.store.notify("jira:issue_created", issue)
        return web.json_response(
            {
                "id": str(issue.id),
                "key": issue.key,
                "self": f"{self.s.base_url}{API}/issue/{issue.id}",
            },
            status=201,
        )

    async def update(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        body = await _json(request)
        values = self._values(dict(body.get("fields") or {}))
        if values:
            self.s.store.change(issue, values)
        return web.Response(status=204)

    async def delete(self, request: web.Request) -> web.Response:
        self.s.store.delete(self._issue(request).key)
        return web.Response(status=204)

    def _values(self, given: dict[str, Any]) -> dict[str, Any]:
        """The issue attributes a create's or edit's `fields` set; Jira's 400 for the rest."""
        unknown = sorted(set(given) - EDITABLE)
        if unknown:
            raise JiraError(
                400,
                fields={
                    name: f"Field '{name}' cannot be set. It is not on the appropriate screen, "
                    "or unknown."
                    for name in unknown
                },
            )
        values: dict[str, Any] = {}
        if "summary" in given:
            values["summary"] = str(given["summary"] or "")
        if "description" in given:
            adf = given["description"]
            if adf is not None and (not isinstance(adf, dict) or adf.get("type") != "doc"):
                raise JiraError(400, fields={"description": "Operation value must be an ADF doc"})
            values["description"] = adf
        if "priority" in given:
            name = (given["priority"] or {}).get("name")
            if name not in PRIORITIES:
                raise JiraError(400, fields={"priority": f"Priority name '{name}' is not valid"})
            values["priority"] = name
        if "assignee" in given:
            account = (given["assignee"] or {}).get("accountId")
            if account is not None and account not in self.s.users:
                raise JiraError(400, fields={"assignee": f"User '{account}' does not exist."})
            values["assignee"] = account
        if "duedate" in given:
            try:
                values["duedate"] = (
                    date.fromisoformat(given["duedate"]) if given["duedate"] else None
                )
            except (TypeError, ValueError):
                raise JiraError(400, fields={"duedate": "Error parsing date string"}) from None
        return values

    def _issue(self, request: web.Request) -> Issue:
        key = request.match_info["key"]
        found = self.s.store.issues.get(key) or next(
            (i for i in self.s.issues if str(i.id) == key), None
        )
        if found is None:
            raise JiraError(404, "Issue does not exist or you do not have permission to see it.")
        return found

    # Transitions

    async def transitions(self, request: web.Request) -> web.Response:
        issue, store = self._issue(request), self.s.store
        offered = [
            views.transition(self.s.base_url, t, store.status(t.to)) for t in store.offered(issue)
        ]
        return web.json_response({"transitions": offered})

    async def transition(self, request: web.Request) -> web.Response:
        issue, store = self._issue(request), self.s.store
        wanted = str(((await _json(request)).get("transition") or {}).get("id") or "")
        chosen = next((t for t in store.offered(issue) if t.id == wanted), None)
        if chosen is None:
            raise JiraError(400, f"Transition id '{wanted}' is not valid for this issue.")
        store.change(issue, {"status": chosen.to})
        return web.Response(status=204)

    # Comments and users

    async def comments(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        start = int(request.query.get("startAt", "0"))
        size = min(int(request.query.get("maxResults", "50")), 100)
        shown = [self.s.comment_view(issue, c) for c in issue.comments[start : start + size]]
        return web.json_response(
            {"startAt": start, "maxResults": size, "total": len(issue.comments), "comments": shown}
        )

    async def add_comment(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        made = self.s.store.comment(
            issue, await _comment_body(request), self.s.caller(request).account_id
        )
        return web.json_response(self.s.comment_view(issue, made), status=201)

    async def edit_comment(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        comment = _comment_of(issue, request)
        self.s.store.edit_comment(issue, comment, await _comment_body(request))
        return web.json_response(self.s.comment_view(issue, comment))

    async def delete_comment(self, request: web.Request) -> web.Response:
        issue = self._issue(request)
        self.s.store.delete_comment(issue, _comment_of(issue, request))
        return web.Response(status=204)

    async def user_search(self, request: web.Request) -> web.Response:
        query = request.query.get("query", "").strip().lower()
        if not query:
            raise JiraError(400, "The query parameter 'query' is required.")
        found = [
            u
            for u in self.s.users.values()
            if (not u.hides_email and u.email.lower() == query)
            or u.display_name.lower().startswith(query)
        ]
        return web.json_response([views.user(self.s.base_url, u) for u in found])


async def _comment_body(request: web.Request) -> dict[str, Any]:
    body = (await _json(request)).get("body")
    if not isinstance(body, dict) or body.get("type") != "doc":
        raise JiraError(400, fields={"comment": "Comment body can not be empty!"})
    return body


def _comment_of(issue: Issue, request: web.Request) -> Comment:
    wanted = request.match_info["id"]
    found = next((c for c in issue.comments if c.id == wanted), None)
    if found is None:
        raise JiraError(404, f"Can not find a comment for the id: {wanted}.")
    return found


async def _json(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise JiraError(400, "Unexpected character: the body is not JSON.") from None
    if not isinstance(body, dict):
        raise JiraError(400, "The body must be a JSON object.")
    return body


def _offset(token: object) -> int:
    if not token:
        return 0
    try:
        return int(base64.urlsafe_b64decode(str(token)).decode())
    except ValueError:
        raise JiraError(400, "The nextPageToken is not valid.") from None

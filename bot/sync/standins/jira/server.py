"""A local Jira Cloud: one site with one project, served on loopback, with a Python API for
tests and the demo (seed issues, change them "there", take transitions away, revoke the token,
fail, hang, throttle, send signed webhooks) and a log of every exchange, which
`tests/vendor_apis/openapi.py` checks against Jira's published description."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from zoneinfo import ZoneInfo

from aiohttp import web

from bot.clock import Clock, SystemClock
from bot.sync.standins.jira import hooks, views
from bot.sync.standins.jira.routes import Api, JiraError
from bot.sync.standins.jira.store import Comment, Issue, Status, Store, Transition, User
from bot.sync.standins.wire import LocalSource, basic_credentials

_CALLER = web.RequestKey("jira_caller", User)

OWNER = User("5b10a2844c20165700ede21g", "Tracker Bot", "tracker@contoso.example")
SOMEONE_ELSE = User("5b10ac8d82e05b22cc7d4ef5", "Riley Source", "riley@contoso.example")
HIDDEN = User("70121:1c2b3d4e", "Quinn Private", "quinn@contoso.example", hides_email=True)


class JiraStandin(LocalSource):
    THROTTLED = "Rate limit exceeded."

    def __init__(
        self,
        *,
        project: str = "FAB",
        token: str = "standin-api-token",
        clock: Clock | None = None,
        page_limit: int = 100,
        time_zone: str = "Australia/Sydney",
    ) -> None:
        self.project, self.project_id, self.token = project, "10000", token
        self.email = OWNER.email
        super().__init__(clock or SystemClock())
        self.page_limit = page_limit  # issues one search page holds at most
        self.time_zone, self.zone = time_zone, ZoneInfo(time_zone)
        self.store = Store(project=project, clock=self.clock, listener=self._changed)
        self.users = {u.account_id: u for u in (OWNER, SOMEONE_ELSE, HIDDEN)}
        self.webhooks: list[hooks.Webhook] = []
        self.hook_calls: list[hooks.HookCall] = []
        self._tokens: dict[tuple[str, str], User] = {(OWNER.email, token): OWNER}

    # Serving

    def routes(self) -> list[web.RouteDef]:
        return Api(self).routes()

    def middlewares(self) -> list[Any]:
        return [self._auth, self._errors]

    def refuse(self, status: int, message: str, headers: dict[str, str] | None) -> web.Response:
        return JiraError(status, message).response(headers)

    # Credentials and people

    def revoke_token(self, token: str | None = None) -> None:
        """From now on the token (default: the first one) is answered 401."""
        gone = token or self.token
        self._tokens = {k: v for k, v in self._tokens.items() if k[1] != gone}

    def add_token(self, token: str, *, email: str = OWNER.email) -> None:
        user = next(u for u in self.users.values() if u.email == email)
        self._tokens[(email, token)] = user

    def add_user(self, display_name: str, email: str, *, hides_email: bool = False) -> User:
        user = User(f"acct-{len(self.users) + 1}", display_name, email, hides_email)
        self.users[user.account_id] = user
        return user

    def user_by_email(self, email: str) -> User:
        return next(u for u in self.users.values() if u.email == email)

    def caller(self, request: web.Request) -> User:
        return request[_CALLER]

    # Issues "there"

    @property
    def issues(self) -> list[Issue]:
        return list(self.store.issues.values())

    @property
    def statuses(self) -> list[Any]:
        return self.store.statuses

    def seed(
        self,
        count: int,
        *,
        types: Sequence[str] = ("Bug", "Task"),
        values: Callable[[int], Mapping[str, Any]] | None = None,
    ) -> list[str]:
        """`count` issues (types in turn, "Issue <n>" from 0, plus `values(n)` as `change`
        takes them); no webhooks are sent. Their keys."""
        made = []
        for n in range(count):
            issue = self.store.create(types[n % len(types)], f"Issue {n}", notify=False)
            self.store.change(issue, self._attributes(values(n) if values else {}), notify=False)
            made.append(issue.key)
        return made

    def create(self, issue_type: str, summary: str, **values: Any) -> str:
        issue = self.store.create(issue_type, summary, notify=False)
        self.store.change(issue, self._attributes(values), notify=False)
        self.store.notify("jira:issue_created", issue)
        return issue.key

    def change(self, key: str, **values: Any) -> None:
        """Changed there by someone: attributes of `Issue` (`status` by name, `assignee` by
        email)."""
        self.store.change(self.store.issues[key], self._attributes(values))

    def delete(self, key: str) -> None:
        self.store.delete(key)

    def comment(self, key: str, body: dict[str, Any], *, by: User = SOMEONE_ELSE) -> Comment:
        return self.store.comment(self.store.issues[key], body, by.account_id)

    def edit_comment(self, key: str, comment_id: str, body: dict[str, Any]) -> None:
        """A comment edited there."""
        issue = self.store.issues[key]
        found = next(c for c in issue.comments if c.id == comment_id)
        self.store.edit_comment(issue, found, body)

    def delete_comment(self, key: str, comment_id: str) -> None:
        """A comment deleted there."""
        issue = self.store.issues[key]
        self.store.delete_comment(issue, next(c for c in issue.comments if c.id == comment_id))

    def add_status(self, name: str, *, category: str = "indeterminate") -> str:
        """A status added to the workflow there (after the others, reachable from any status,
        as an administrator adds one); its id."""
        status_id = str(10000 + len(self.store.statuses))
        self.store.statuses.append(Status(status_id, name, category))
        self.store.transitions.append(Transition(f"{status_id}1", name, status_id))
        return status_id

    def remove_transitions(self, *, to: str) -> None:
        """The workflow no longer offers any transition to the status named `to`."""
        target = self.store.status_named(to).id
        self.store.transitions = [t for t in self.store.transitions if t.to != target]

    def issue(self, key: str) -> Issue | None:
        return self.store.issues.get(key)

    def status_of(self, key: str) -> str:
        return self.store.status(self.store.issues[key].status).name

    def _attributes(self, values: Mapping[str, Any]) -> dict[str, Any]:
        attributes = dict(values)
        if "status" in attributes:
            attributes["status"] = self.store.status_named(attributes["status"]).id
        if attributes.get("assignee"):
            attributes["assignee"] = self.user_by_email(attributes["assignee"]).account_id
        return attributes

    # Views the routes share

    def project_view(self) -> dict[str, Any]:
        return {
            "self": f"{self.base_url}/rest/api/3/project/{self.project_id}",
            "id": self.project_id,
            "key": self.project,
            "name": "Fabrikam",
            "projectTypeKey": "software",
            "simplified": False,
            "style": "classic",
            "isPrivate": False,
        }

    def issue_view(self, issue: Issue, wanted: Any = None) -> dict[str, Any]:
        statuses = {s.id: s for s in self.store.statuses}
        project = {
            k: v for k, v in self.project_view().items() if k in ("self", "id", "key", "name")
        }
        return views.issue(
            self.base_url,
            issue,
            project=project,
            statuses=statuses,
            users=self.users,
            wanted=wanted,
        )

    def comment_view(self, issue: Issue, comment: Comment) -> dict[str, Any]:
        return views.comment(self.base_url, issue.id, comment, self.users[comment.author])

    # Webhooks

    def add_webhook(self, url: str, secret: str) -> None:
        """As an administrator registers one: every issue change is sent to `url`, signed."""
        self.webhooks.append(hooks.Webhook(url, secret))

    async def send_webhook(self, url: str, secret: str, event: str, key: str) -> hooks.HookCall:
        """One signed call now (the issue as it is), whatever is registered."""
        issue = self.store.issues[key]
        body = hooks.payload(event, self.issue_view(issue), at_ms=self._ms())
        made = await hooks.call(self.http, hooks.Webhook(url, secret), event, body)
        self.hook_calls.append(made)
        return made

    def _changed(self, event: str, issue: Issue) -> None:
        if not self.webhooks:
            return
        body = hooks.payload(event, self.issue_view(issue), at_ms=self._ms())
        for hook in self.webhooks:
            self.spawn(self._call(hook, event, body))

    async def _call(self, hook: hooks.Webhook, event: str, body: bytes) -> None:
        self.hook_calls.append(await hooks.call(self.http, hook, event, body))

    def _ms(self) -> int:
        return int(self.clock.now().timestamp() * 1000)

    # Middlewares, outermost first

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        credentials = basic_credentials(request.headers.get("Authorization", ""))
        user = self._tokens.get(credentials) if credentials else None
        if user is None:
            return JiraError(401, "Client must be authenticated to access this resource.").response(
                {"WWW-Authenticate": 'Basic realm="protected-area"'}
            )
        request[_CALLER] = user
        return await handler(request)

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            return await handler(request)
        except JiraError as refused:
            return refused.response()

"""A local Azure DevOps: one organization with one project, served on loopback, with a Python
API for tests and the demo (seed, change items "there", revoke the token, fail, hang, throttle)
and a log of every exchange, which `tests/vendor_apis/conformance.py` checks against the
published description."""

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.clock import Clock, SystemClock
from bot.sync.standins.azure_devops import hooks, views
from bot.sync.standins.azure_devops.errors import AdoError
from bot.sync.standins.azure_devops.identities import Identity, parse_identity
from bot.sync.standins.azure_devops.process import State, WorkItemType, find_type
from bot.sync.standins.azure_devops.routes import Api
from bot.sync.standins.azure_devops.store import Store, WorkItem
from bot.sync.standins.wire import LocalSource, basic_credentials

_TOKEN = web.RequestKey("ado_token", str)
_CALLER = web.RequestKey("ado_caller", Identity)

OWNER = "Tracker Bot <tracker@contoso.example>"
SOMEONE_ELSE = "Riley Source <riley@contoso.example>"


@dataclass(slots=True)
class _Token:
    identity: Identity
    hooks: bool
    revoked: bool = False


class AzureDevOpsStandin(LocalSource):
    THROTTLED = "TF400733: The request has been throttled; retry after the time given."

    def __init__(
        self,
        *,
        organization: str = "contoso",
        project: str = "Fabrikam",
        token: str = "standin-pat",
        clock: Clock | None = None,
        wiql_limit: int = 20_000,
    ) -> None:
        self.organization = organization
        self.project = project
        self.project_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"ado:{organization}/{project}"))
        self.team = f"{project} Team"
        self.team_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"ado:{organization}/{self.team}"))
        self.token = token
        super().__init__(clock or SystemClock())
        self.wiql_limit = wiql_limit
        self.store = Store(project=project, clock=self.clock, listener=self._changed)
        self.subscriptions: dict[str, dict[str, Any]] = {}
        self.hook_calls: list[hooks.HookCall] = []
        self._tokens = {token: _Token(parse_identity(OWNER), hooks=True)}
        self._notifications = 0

    # Serving

    @property
    def org_url(self) -> str:
        """What a project's `hostname` names: `http://127.0.0.1:<port>/<organization>`."""
        return f"{self.base_url}/{self.organization}"

    def routes(self) -> list[web.RouteDef]:
        return Api(self).routes()

    def middlewares(self) -> list[Any]:
        return [self._auth, self._errors]

    def refuse(self, status: int, message: str, headers: dict[str, str] | None) -> web.Response:
        type_key = "RequestBlockedException" if status == 429 else "VssServiceException"
        return AdoError(status, message, type_key).response(headers)

    # Credentials

    def add_token(self, token: str, *, user: str = OWNER, hooks: bool = True) -> None:
        """Another personal access token; `hooks=False` makes subscriptions answer it 403."""
        self._tokens[token] = _Token(parse_identity(user), hooks=hooks)

    def revoke_token(self, token: str | None = None) -> None:
        """From now on the token (default: the first one) is answered 401."""
        self._tokens[token or self.token].revoked = True

    def caller(self, request: web.Request) -> Identity:
        return request[_CALLER]

    def may_use_hooks(self, request: web.Request) -> bool:
        return self._tokens[request[_TOKEN]].hooks

    # Work items "there"

    def seed(
        self,
        count: int,
        *,
        types: Sequence[str] = ("Bug", "Task"),
        fields: Callable[[int], Mapping[str, Any]] | None = None,
        by: str = SOMEONE_ELSE,
    ) -> list[int]:
        """`count` work items (types taken in turn, titled "Work item <n>", n from 0, plus
        `fields(n)`), each with its own ChangedDate; no hooks are called."""
        who = parse_identity(by)
        kinds = [self._type(name) for name in types]
        made = []
        for n in range(count):
            values = {"System.Title": f"Work item {n}", **(fields(n) if fields else {})}
            made.append(self.store.create(kinds[n % len(kinds)], values, who, notify=False).id)
        return made

    def create(self, item_type: str, fields: Mapping[str, Any], *, by: str = SOMEONE_ELSE) -> int:
        """A work item created there by another user (hooks are called); its id."""
        return self.store.create(self._type(item_type), fields, parse_identity(by)).id

    def change(self, item_id: int, fields: Mapping[str, Any], *, by: str = SOMEONE_ELSE) -> int:
        """Fields changed there by another user (None removes one); the new `rev`."""
        return self.store.update(item_id, fields, parse_identity(by)).rev

    def delete(self, item_id: int, *, destroy: bool = False) -> None:
        """Deleted there: to the recycle bin, or for good."""
        self.store.delete(item_id, destroy=destroy)

    def comment(self, item_id: int, text: str, *, by: str = SOMEONE_ELSE) -> int:
        """A comment made there; its id."""
        return self.store.add_comment(item_id, text, parse_identity(by)).id

    def edit_comment(
        self, item_id: int, comment_id: int, text: str, *, by: str = SOMEONE_ELSE
    ) -> None:
        """A comment edited there."""
        self.store.edit_comment(item_id, comment_id, text, parse_identity(by))

    def delete_comment(self, item_id: int, comment_id: int, *, by: str = SOMEONE_ELSE) -> None:
        """A comment deleted there."""
        self.store.delete_comment(item_id, comment_id, parse_identity(by))

    def add_state(
        self, item_type: str, name: str, *, category: str = "InProgress", color: str = "007acc"
    ) -> None:
        """A state added to a type there (as a process administrator would), after the others."""
        self._type(item_type).states.append(State(name, category, color))

    def _type(self, name: str) -> WorkItemType:
        found = find_type(self.store.types, name)
        if found is None:
            raise ValueError(f"the stand-in has no work item type {name!r}")
        return found

    def work_item(self, item_id: int) -> dict[str, Any] | None:
        """The item as the API serves it, or None when it is deleted or never was."""
        item = self.store.items.get(item_id)
        return views.work_item(item, self.org_url, self.project_id) if item else None

    def in_recycle_bin(self, item_id: int) -> bool:
        return item_id in self.store.recycle_bin

    def comments(self, item_id: int) -> list[dict[str, Any]]:
        item = self.store.items.get(item_id) or self.store.recycle_bin[item_id]
        return [views.comment(c, self.org_url, self.project_id) for c in item.comments]

    # Service hooks

    def _changed(self, event_type: str, item: WorkItem, before: dict[str, Any]) -> None:
        wanted = [s for s in self.subscriptions.values() if hooks.matches(s, event_type, item)]
        if not wanted:
            return
        if event_type == "workitem.updated":
            resource = views.update(item, before, self.org_url, self.project_id)
        else:
            resource = views.work_item(item, self.org_url, self.project_id)
        for subscription in wanted:
            self._notifications += 1
            payload = hooks.event(
                subscription,
                event_type,
                resource,
                item=item,
                notification_id=self._notifications,
                project_id=self.project_id,
                base_url=self.org_url,
                at=self.clock.now(),
            )
            self.spawn(self._call(subscription, payload))

    async def _call(self, subscription: dict[str, Any], payload: dict[str, Any]) -> None:
        self.hook_calls.append(await hooks.call(self.http, subscription, payload))

    # Middlewares, outermost first

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        token = _basic_password(request.headers.get("Authorization", ""))
        known = self._tokens.get(token or "")
        if token is None or known is None or known.revoked:
            return AdoError(
                401,
                "TF400813: The user is not authorized to access this resource.",
                "UnauthorizedRequestException",
            ).response({"WWW-Authenticate": 'Basic realm="https://dev.azure.com/"'})
        request[_TOKEN], request[_CALLER] = token, known.identity
        return await handler(request)

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            return await handler(request)
        except AdoError as refused:
            return refused.response()


def _basic_password(header: str) -> str | None:
    """The password of a Basic header (a PAT: the user name is ignored, as the service does)."""
    credentials = basic_credentials(header)
    return (credentials[1] or None) if credentials else None

"""A local Microsoft Graph Planner with its Entra token endpoint, on one loopback port: one plan
(with buckets and tasks), a Python API for tests and the demo (seed, change tasks "there",
expire tokens, revoke the credentials, fail, hang, throttle) and a log of every exchange, which
`tests/vendor_apis/planner_conformance.py` checks against Graph's published metadata."""

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from aiohttp import web

from bot.clock import Clock, SystemClock
from bot.sync.standins.planner import views
from bot.sync.standins.planner.errors import GraphError, TokenError
from bot.sync.standins.planner.routes import V1, Api
from bot.sync.standins.planner.store import Store, Task
from bot.sync.standins.wire import LocalSource

TOKEN_LIFETIME = timedelta(hours=1)
SCOPE = "https://graph.microsoft.com/.default"
SOMEONE_ELSE = "5f0c8e1a-2b3c-4d5e-8f90-a1b2c3d4e5f6"  # an Entra user who edits tasks there


@dataclass(slots=True)
class _Token:
    expires_at: datetime


class PlannerStandin(LocalSource):
    THROTTLED = "Too many requests; retry after the time given."

    def __init__(
        self,
        *,
        tenant_id: str = "contoso.onmicrosoft.com",
        client_id: str = "11111111-2222-3333-4444-555555555555",
        client_secret: str = "standin-secret",
        clock: Clock | None = None,
        page_size: int = 100,
        token_lifetime: timedelta = TOKEN_LIFETIME,
    ) -> None:
        self.tenant_id, self.client_id, self.client_secret = tenant_id, client_id, client_secret
        self.app_id = client_id  # the app's own identity as Graph records it (createdBy, ...)
        super().__init__(clock or SystemClock())
        self.page_size = page_size
        self.token_lifetime = token_lifetime
        group = str(uuid.uuid5(uuid.NAMESPACE_URL, f"planner:{tenant_id}"))
        self.store = Store(
            plan_id="xqQg5FS2LkCp935s-FIFm2QAFkHM",
            title="Fabrikam",
            group_id=group,
            clock=self.clock,
        )
        self.store.add_bucket("To do")
        self.store.add_bucket("Doing")
        # The directory's users by object id: their display names (`GET /users/{id}`).
        self.users = {SOMEONE_ELSE: "Riley Source"}
        self.users_readable = True  # False: the app lacks User.Read.All (403)
        self.tokens_issued = 0
        self._tokens: dict[str, _Token] = {}
        self._revoked = False

    @property
    def plan_id(self) -> str:
        return self.store.plan_id

    @property
    def graph_url(self) -> str:
        """What a project's `hostname` names: `http://127.0.0.1:<port>/v1.0`."""
        return f"{self.base_url}{V1}"

    @property
    def authority_url(self) -> str:
        """What `ENTRA_AUTHORITY_URL` names: the token endpoint's base."""
        return self.base_url

    @property
    def buckets(self) -> list[str]:
        return list(self.store.buckets)

    # Serving

    def routes(self) -> list[web.RouteDef]:
        return Api(self).routes()

    def middlewares(self) -> list[Any]:
        return [self._auth, self._errors]

    def refuse(self, status: int, message: str, headers: dict[str, str] | None) -> web.Response:
        code = "TooManyRequests" if status == 429 else "ServiceNotAvailable"
        return GraphError(status, message, code).response(headers)

    # Credentials

    async def issue_token(self, request: web.Request) -> web.Response:
        """`POST /{tenant}/oauth2/v2.0/token`, the client-credentials grant."""
        form = await request.post()
        if request.match_info["tenant"] != self.tenant_id:
            raise TokenError(400, "invalid_request", "AADSTS90002: Tenant not found.")
        if form.get("grant_type") != "client_credentials" or form.get("scope") != SCOPE:
            raise TokenError(400, "invalid_request", "AADSTS900144: The request body is not valid.")
        if form.get("client_id") != self.client_id:
            raise TokenError(
                400, "unauthorized_client", "AADSTS700016: Application not found in the directory."
            )
        if form.get("client_secret") != self.client_secret or self._revoked:
            raise TokenError(
                401, "invalid_client", "AADSTS7000215: Invalid client secret provided."
            )
        token = secrets.token_urlsafe(32)
        self._tokens[token] = _Token(self.clock.now() + self.token_lifetime)
        self.tokens_issued += 1
        seconds = int(self.token_lifetime.total_seconds())
        return web.json_response(
            {
                "token_type": "Bearer",
                "expires_in": seconds,
                "ext_expires_in": seconds,
                "access_token": token,
            }
        )

    def expire_tokens(self) -> None:
        """Every token given so far is expired from now on (Graph answers it 401)."""
        for token in self._tokens.values():
            token.expires_at = self.clock.now()

    def revoke(self) -> None:
        """The client secret is revoked: no new token, and the ones given are refused."""
        self._revoked = True
        self.expire_tokens()

    def new_secret(self) -> str:
        """A new client secret for the app (the revoked one stays refused); the secret."""
        self.client_secret = f"standin-secret-{self.tokens_issued}-{len(self.exchanges)}"
        self._revoked = False
        return self.client_secret

    @property
    def tokens(self) -> list[str]:
        """Every access token given so far."""
        return list(self._tokens)

    def add_user(self, object_id: str, display_name: str) -> None:
        """A user of the tenant's directory, whom tasks may be assigned to."""
        self.users[object_id] = display_name

    # Tasks "there"

    def seed(self, count: int, **values: Any) -> list[str]:
        """`count` tasks titled "Task <n>" (n from 0), in the first bucket, with `values`
        (Graph's property names) for each."""
        return [self.create(f"Task {n}", **values) for n in range(count)]

    def create(
        self, title: str, *, description: str = "", task_id: str | None = None, **values: Any
    ) -> str:
        """A task made there by another user (with `task_id`, or a new id); its id."""
        if task_id in self.store.tasks:
            raise ValueError(f"the stand-in has a task {task_id!r} already")
        task = self.store.create({"title": title, **values}, by=SOMEONE_ELSE, task_id=task_id)
        if description:
            self.store.describe(task, description)
        return task.id

    def change(self, task_id: str, **values: Any) -> str:
        """Properties changed there by another user (Graph's names); the task's new ETag."""
        task = self._found(task_id)
        self.store.update(task, values, by=SOMEONE_ELSE)
        return task.etag

    def describe(self, task_id: str, description: str) -> str:
        """The description changed there (the details' ETag moves, the task's does not)."""
        task = self._found(task_id)
        self.store.describe(task, description)
        return task.details.etag

    def delete(self, task_id: str) -> None:
        del self.store.tasks[task_id]

    def task(self, task_id: str) -> dict[str, Any] | None:
        """The task as Graph serves it, with its `description`; None when there is none."""
        found = self.store.tasks.get(task_id)
        if found is None:
            return None
        return {**views.task(found, self.app_id), "description": found.details.description}

    def tasks(self) -> list[dict[str, Any]]:
        return [views.task(t, self.app_id) for t in self.store.tasks.values()]

    def _found(self, task_id: str) -> Task:
        found = self.store.tasks.get(task_id)
        if found is None:
            raise ValueError(f"the stand-in has no task {task_id!r}")
        return found

    # Middlewares inside the log and the faults

    @web.middleware
    async def _auth(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not request.path.startswith(V1 + "/"):
            return await handler(request)  # the token endpoint
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        known = self._tokens.get(token) if scheme == "Bearer" else None
        if known is None:
            return GraphError(401, "Access token is empty.", "InvalidAuthenticationToken").response(
                {"WWW-Authenticate": 'Bearer realm=""'}
            )
        if self.clock.now() >= known.expires_at:
            return GraphError(
                401,
                "Lifetime validation failed, the token is expired.",
                "InvalidAuthenticationToken",
            ).response({"WWW-Authenticate": 'Bearer error="invalid_token"'})
        return await handler(request)

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            return await handler(request)
        except (GraphError, TokenError) as refused:
            return refused.response()

"""A local Bot Connector: records every call the bot makes and serves the roster APIs it reads."""

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

GROUP_ID = "a0a0a0a0-0000-0000-0000-0000000000c1"
ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"
# What Teams' own simulator shows for an Office 365 connector card, which it does not render: a
# message whose card people cannot see is refused here, so a test posting one fails.
NOT_RENDERED = "Connector Card is not supported yet"


@dataclass
class Call:
    method: str
    path: str
    body: Any
    authorization: str | None
    at: float  # time.monotonic() on arrival


@dataclass(frozen=True)
class TeamsMember:
    object_id: str
    upn: str
    name: str

    @property
    def account(self) -> dict[str, Any]:
        return {
            "id": f"29:{self.object_id}",
            "name": self.name,
            "aadObjectId": self.object_id,
            "email": self.upn,
            "userPrincipalName": self.upn,
            "tenantId": "tenant",
            "userRole": "user",
        }


@dataclass
class Connector:
    """What the fake Teams knows (team, channels, members) and what it was told."""

    team_id: str
    team_name: str = "Team A"
    channels: dict[str, str | None] = field(default_factory=dict)  # thread id → name
    members: list[TeamsMember] = field(default_factory=list)
    page_size: int = 2  # small, so a roster of a few people already spans pages
    # Answers for the next sends/creates/updates, in order: (status, headers); then 2xx.
    refusals: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    missing_team_details: bool = False
    # Set: new threads and posts wait for it before answering (a connector that hangs).
    stall: asyncio.Event | None = None
    calls: list[Call] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1000))

    def app(self) -> web.Application:
        app = web.Application()
        conversation = "/v3/conversations/{conversation}"
        app.router.add_post("/v3/conversations", self._create)
        app.router.add_post(conversation + "/activities", self._send)
        app.router.add_post(conversation + "/activities/{activity}", self._send)
        app.router.add_put(conversation + "/activities/{activity}", self._update)
        app.router.add_get(conversation + "/pagedmembers", self._paged_members)
        app.router.add_get(conversation + "/members/{member}", self._member)
        app.router.add_get("/v3/teams/{team}/conversations", self._channels)
        app.router.add_get("/v3/teams/{team}", self._team)
        return app

    # What tests read.
    def sent(self) -> list[Call]:
        """Messages posted (sends, replies, new threads), in order."""
        return [c for c in self.calls if c.method == "POST" and "members" not in c.path]

    def texts(self) -> list[str]:
        return [c.body.get("text", "") for c in self.sent() if "text" in (c.body or {})]

    def paths(self, method: str) -> list[str]:
        return [c.path for c in self.calls if c.method == method]

    # Handlers.
    async def _record(self, request: web.Request) -> Call:
        body = await request.json() if request.can_read_body else None
        call = Call(
            request.method,
            request.path,
            body,
            request.headers.get("Authorization"),
            time.monotonic(),
        )
        self.calls.append(call)
        return call

    def _refusal(self) -> web.Response | None:
        if not self.refusals:
            return None
        status, headers = self.refusals.pop(0)
        return web.json_response(
            {"error": {"code": "Throttled", "message": "slow down"}}, status=status, headers=headers
        )

    @staticmethod
    def _unrendered(activity: Any) -> web.Response | None:
        """A 400 for a message with any attachment but an Adaptive Card."""
        attachments = (activity or {}).get("attachments") or []
        if all(attachment.get("contentType") == ADAPTIVE_CARD for attachment in attachments):
            return None
        return web.json_response(
            {"error": {"code": "BadArgument", "message": NOT_RENDERED}}, status=400
        )

    async def _stalled(self) -> None:
        if self.stall is not None:
            await self.stall.wait()

    async def _send(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        await self._stalled()
        return (
            self._unrendered(call.body)
            or self._refusal()
            or web.json_response({"id": str(next(self._ids))})
        )

    async def _create(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        await self._stalled()
        refused = self._unrendered(call.body.get("activity")) or self._refusal()
        if refused:
            return refused
        message_id = str(next(self._ids))
        channel = call.body["channelData"]["channel"]["id"]
        return web.json_response(
            {"id": f"{channel};messageid={message_id}", "activityId": message_id}
        )

    async def _update(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        return (
            self._unrendered(call.body)
            or self._refusal()
            or web.json_response({"id": request.match_info["activity"]})
        )

    async def _paged_members(self, request: web.Request) -> web.Response:
        await self._record(request)
        start = int(request.query.get("continuationToken") or 0)
        page = self.members[start : start + self.page_size]
        following = start + self.page_size
        body: dict[str, Any] = {"members": [member.account for member in page]}
        if following < len(self.members):
            body["continuationToken"] = str(following)
        return web.json_response(body)

    async def _member(self, request: web.Request) -> web.Response:
        await self._record(request)
        wanted = request.match_info["member"]
        for member in self.members:
            if wanted in (member.account["id"], member.object_id):
                return web.json_response(member.account)
        return web.json_response({"error": {"code": "NotFound"}}, status=404)

    async def _channels(self, request: web.Request) -> web.Response:
        await self._record(request)
        listed = [{"id": id_, "name": name} for id_, name in self.channels.items()]
        return web.json_response({"conversations": listed})

    async def _team(self, request: web.Request) -> web.Response:
        await self._record(request)
        if self.missing_team_details:
            return web.json_response({"error": {"code": "NotFound"}}, status=404)
        return web.json_response(
            {"id": self.team_id, "name": self.team_name, "aadGroupId": GROUP_ID}
        )

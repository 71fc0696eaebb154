"""A local Bot Connector: records every call the bot makes and serves the roster APIs it reads."""

import asyncio
import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from html import unescape
from typing import Any

from aiohttp import web

GROUP_ID = "a0a0a0a0-0000-0000-0000-0000000000c1"
ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"
_AT = re.compile(r"<at>(.*?)</at>")
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Seen:
    """What Teams shows of a message, and whom it notifies."""

    text: str  # every word a person reads, one text or card element a line; <at>Name</at> as Name
    mentioned: list[str]  # the ids of the people its mentions reach


def seen(activity: dict[str, Any]) -> Seen:
    """A message as Teams shows it. An Adaptive Card is the whole message: a text sent beside one
    is shown by some clients instead of the card (Teams' simulator showed "@Alex Wilber" and no
    card), so it is refused here; a card's mentions are its `msteams` entities whose text stands
    in one of its TextBlocks (Teams' card-based mentions). A message without one is its text,
    its mentions the entities whose text it holds."""
    cards = [
        attachment["content"]
        for attachment in activity.get("attachments") or ()
        if attachment.get("contentType") == ADAPTIVE_CARD
    ]
    if cards:
        assert not activity.get("text"), f"a text beside a card: {activity['text']!r}"
        nodes = [node for card in cards for node in _walk(card.get("body"))]
        texts = [
            (node["type"], node["text"])
            for node in nodes
            if node.get("type") in ("TextBlock", "TextRun") and isinstance(node.get("text"), str)
        ]
        blocks = [text for kind, text in texts if kind == "TextBlock"]  # where mentions work
        entities = [e for card in cards for e in (card.get("msteams") or {}).get("entities", ())]
        said = "\n".join(_AT.sub(r"\1", text) for _kind, text in texts)
        mentioned = [
            e["mentioned"]["id"]
            for e in entities
            if e.get("type") == "mention" and any(e["text"] in block for block in blocks)
        ]
        return Seen(unescape(said), mentioned)
    text = str(activity.get("text") or "")
    mentioned = [
        e["mentioned"]["id"]
        for e in activity.get("entities") or ()
        if e.get("type") == "mention" and e.get("text") and e["text"] in text
    ]
    return Seen(unescape(_TAG.sub("", _AT.sub(r"\1", text))), mentioned)


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [found for item in node for found in _walk(item)]
    if isinstance(node, dict):
        return [node, *(found for value in node.values() for found in _walk(value))]
    return []


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
    # Answers for the next sends/creates/updates, in order: (status, headers); then 2xx. The
    # body is Teams' JSON error, or plain text when the headers say `Content-Type: text/plain`.
    refusals: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    missing_team_details: bool = False
    # Set: new threads and posts wait for it before answering (a connector that hangs).
    stall: asyncio.Event | None = None
    held: int = 0  # requests waiting for the stall right now
    dropped: int = 0  # held requests whose connection the bot closed
    # Ids of messages that are replies in a thread, not its root: Teams answers 404 to a reply
    # "to" one of them. The bot's own replies join it as it sends them.
    replies: set[str] = field(default_factory=set)
    calls: list[Call] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _ids: Any = field(default_factory=lambda: itertools.count(1000))

    def app(self) -> web.Application:
        app = web.Application()
        conversation = "/v3/conversations/{conversation}"
        app.router.add_post("/v3/conversations", self._create)
        app.router.add_post(conversation + "/activities", self._send)
        app.router.add_post(conversation + "/activities/{activity}", self._send)
        app.router.add_put(conversation + "/activities/{activity}", self._update)
        app.router.add_delete(conversation + "/activities/{activity}", self._delete)
        app.router.add_get(conversation + "/pagedmembers", self._paged_members)
        app.router.add_get(conversation + "/members/{member}", self._member)
        app.router.add_get("/v3/teams/{team}/conversations", self._channels)
        app.router.add_get("/v3/teams/{team}", self._team)
        return app

    # What tests read.
    def sent(self) -> list[Call]:
        """Messages posted (sends, replies, new threads), in order."""
        return [c for c in self.calls if c.method == "POST" and "members" not in c.path]

    def seen(self) -> list[Seen]:
        """The messages posted, as Teams shows them."""
        return [seen(c.body.get("activity") or c.body) for c in self.sent()]

    def texts(self) -> list[str]:
        return [c.body.get("text", "") for c in self.sent() if "text" in (c.body or {})]

    def paths(self, method: str) -> list[str]:
        return [c.path for c in self.calls if c.method == method]

    async def until(self, condition: Callable[["Connector"], bool]) -> None:
        """Wait until `condition` holds (checked whenever a held request arrives or ends)."""
        while not condition(self):
            self._changed.clear()
            await self._changed.wait()

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
        if headers.get("Content-Type", "").startswith("text/plain"):
            return web.Response(body=b"Not Found", status=status, headers=headers)
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
        if self.stall is None:
            return
        self.held += 1
        self._changed.set()
        try:
            await self.stall.wait()
        except asyncio.CancelledError:  # the test server cancels a handler whose client left
            self.dropped += 1
            raise
        finally:
            self.held -= 1
            self._changed.set()

    async def _send(self, request: web.Request) -> web.Response:
        call = await self._record(request)
        await self._stalled()
        _, _, root = request.match_info["conversation"].partition(";messageid=")
        replied_to = request.match_info.get("activity")
        if root in self.replies or replied_to in self.replies:
            # As Teams: a thread is named by its root, and a reply is no root.
            return web.json_response(
                {"error": {"code": "NotFound", "message": "Activity not found"}}, status=404
            )
        refused = self._unrendered(call.body) or self._refusal()
        if refused:
            return refused
        sent = str(next(self._ids))
        if root:  # posted in a thread (elsewhere a post starts a thread, or there are none)
            self.replies.add(sent)
        return web.json_response({"id": sent})

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

    async def _delete(self, request: web.Request) -> web.Response:
        await self._record(request)
        return self._refusal() or web.Response(status=200)

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

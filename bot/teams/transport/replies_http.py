"""A turn's messages posted to the Bot Connector with the app's aiohttp session.

The SDK's connector client serialises a card field by field through msrest (several ms for a
list card) and posts with blocking `requests` in a thread. Here only the activity's envelope goes
through msrest; attachment contents, already JSON-ready dicts, are encoded as they are, and the
post runs on the loop. The Authorization header still comes from the SDK's credentials, the way
msrest's own pipeline signs a request.
"""

import asyncio
from typing import Any
from urllib.parse import quote

import aiohttp
import orjson
from botbuilder.schema import Activity, ResourceResponse
from botframework.connector.auth import AppCredentials

SEND_TIMEOUT = aiohttp.ClientTimeout(total=30)


class ReplyRefused(Exception):
    """The Bot Connector answered a send with something other than 2xx."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"the Bot Connector refused the message: {status} {body[:200]}")
        self.status = status


class _Headers:
    """What `AppCredentials.signed_session` touches of a requests session: its headers."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}


async def post_activity(
    http: aiohttp.ClientSession,
    credentials: AppCredentials,
    activity: Activity,
    *,
    user_agent: str,
) -> ResourceResponse:
    """Send (or, with `reply_to_id`, reply) `activity` in its conversation."""
    conversation_id = activity.conversation.id
    url = f"{activity.service_url.rstrip('/')}/v3/conversations/{quote(conversation_id, safe='')}"
    url += "/activities"
    if activity.reply_to_id:
        url += "/" + quote(activity.reply_to_id, safe="")
    headers = {
        "Accept": "application/json",
        "Content-Type": "application/json; charset=utf-8",
        "User-Agent": user_agent,
        "x-ms-conversation-id": conversation_id,
        **await _authorization(credentials),
    }
    async with http.post(
        url, data=encode(activity), headers=headers, timeout=SEND_TIMEOUT
    ) as response:
        if response.status not in (200, 201, 202):
            raise ReplyRefused(response.status, await response.text())
        answer = await response.read()
    found = orjson.loads(answer) if answer and response.status != 202 else {}
    return ResourceResponse(id=found.get("id") if isinstance(found, dict) else None)


def encode(activity: Activity) -> bytes:
    """The activity's JSON as msrest writes it, attachment contents copied as they are."""
    attachments = activity.attachments or []
    contents = [attachment.content for attachment in attachments]
    try:
        for attachment in attachments:
            attachment.content = None
        body: dict[str, Any] = activity.serialize()
    finally:
        for attachment, content in zip(attachments, contents, strict=True):
            attachment.content = content
    for serialised, content in zip(body.get("attachments", []), contents, strict=True):
        if content is not None:
            serialised["content"] = content
    return orjson.dumps(body)


async def _authorization(credentials: AppCredentials) -> dict[str, str]:
    """The header msrest's credentials policy would set; none without an app id."""
    holder = _Headers()
    if credentials.microsoft_app_id:
        # Getting a token may call the login service with blocking requests (cached after).
        await asyncio.to_thread(credentials.signed_session, holder)
    else:
        credentials.signed_session(holder)
    return holder.headers

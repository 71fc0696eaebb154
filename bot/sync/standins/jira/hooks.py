"""Webhooks as a Jira administrator registers them: a URL and a secret; each call's body is the
event (`jira:issue_updated`, ...) with the issue, signed `X-Hub-Signature: sha256=<hex HMAC>`."""

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import Any

import aiohttp


@dataclass(frozen=True, slots=True)
class Webhook:
    url: str
    secret: str


@dataclass(frozen=True, slots=True)
class HookCall:
    url: str
    event: str
    body: bytes
    signature: str
    status: int  # what the receiver answered (0: it could not be reached)


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def payload(event: str, issue: dict[str, Any], *, at_ms: int) -> bytes:
    kind = {"jira:issue_created": "issue_created", "jira:issue_deleted": "issue_deleted"}
    return json.dumps(
        {
            "timestamp": at_ms,
            "webhookEvent": event,
            "issue_event_type_name": kind.get(event, "issue_generic"),
            "issue": issue,
        }
    ).encode()


async def call(http: aiohttp.ClientSession, hook: Webhook, event: str, body: bytes) -> HookCall:
    signed = signature(hook.secret, body)
    headers = {"Content-Type": "application/json", "X-Hub-Signature": signed}
    try:
        async with http.post(hook.url, data=body, headers=headers) as response:
            status = response.status
    except (aiohttp.ClientError, TimeoutError, OSError):
        status = 0
    return HookCall(hook.url, event, body, signed, status)

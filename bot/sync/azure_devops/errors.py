"""Azure DevOps' failed answers as the port's errors (`bot.sync.source`)."""

from typing import Any

import orjson

from bot.sync.source import (
    SourceError,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceUnauthorized,
)

SHOWN = 200  # characters of a vendor's message kept


def vendor_message(body: str) -> tuple[str, str]:
    """The `typeKey` and `message` of Azure DevOps' error body (empty when it has none)."""
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "", body[:SHOWN].strip()
    if not isinstance(parsed, dict):
        return "", ""
    return str(parsed.get("typeKey") or ""), str(parsed.get("message") or "")[:SHOWN]


def failure(status: int, body: str, *, what: str) -> Exception:
    """The error for a non-2xx answer to `what` (a request named without secrets); 429 and
    503 are the client's (`SourceThrottled`, with the host held)."""
    code, message = vendor_message(body)
    said = f"{what}: Azure DevOps answered {status}" + (f" ({message})" if message else "")
    if status in (401, 403):
        return SourceUnauthorized(said)
    if status == 404:
        return SourceNotFound(said)
    if status == 412:
        return SourceStale(said)
    if 400 <= status < 500 and status != 408:  # 400 and the rest: this request, refused
        return SourceRefused(code or f"HTTP {status}", message or said)
    return SourceError(said)  # 408, 5xx: worth trying again

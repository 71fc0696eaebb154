"""Azure DevOps' failed answers as the port's errors (`bot.sync.source`)."""

from typing import Any

import orjson

from bot.sync.exchange import SHOWN, port_error


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
    return port_error(status, code, message, said=said)

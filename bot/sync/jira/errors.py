"""Jira's failed answers as the port's errors (`bot.sync.source`)."""

from typing import Any

import orjson

from bot.sync.exchange import SHOWN, port_error


def vendor_message(body: str) -> str:
    """The messages of Jira's `ErrorCollection` (`errorMessages`, then `errors` by field)."""
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return body[:SHOWN].strip()
    if not isinstance(parsed, dict):
        return ""
    said = [str(m) for m in parsed.get("errorMessages") or []]
    said += [f"{field}: {m}" for field, m in (parsed.get("errors") or {}).items()]
    return "; ".join(said)[:SHOWN]


def failure(status: int, body: str, *, what: str) -> Exception:
    """The error for a non-2xx answer to `what` (a request named without secrets); 429 and
    503 are `bot.sync.exchange`'s (`SourceThrottled`, with the host held)."""
    message = vendor_message(body)
    said = f"{what}: Jira answered {status}" + (f" ({message})" if message else "")
    return port_error(status, "", message, said=said)

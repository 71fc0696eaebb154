"""Graph's (and Entra's) failed answers as the port's errors (`bot.sync.failures`)."""

from typing import Any

import orjson

from bot.sync.failures import SHOWN, THROTTLED, port_error

__all__ = ["THROTTLED", "failure", "graph_message"]


def graph_message(body: bytes) -> tuple[str, str]:
    """The code and message of Graph's `{"error": {code, message}}` or Entra's
    `{error, error_description}` (empty when there is none)."""
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "", body[:SHOWN].decode("utf-8", "replace").strip()
    if not isinstance(parsed, dict):
        return "", ""
    error = parsed.get("error")
    if isinstance(error, dict):
        return str(error.get("code") or ""), str(error.get("message") or "")[:SHOWN]
    return str(error or ""), str(parsed.get("error_description") or "")[:SHOWN]


def failure(status: int, body: bytes, *, what: str) -> Exception:
    """The error for a non-2xx answer to `what`; 429 and 503 are the client's."""
    code, message = graph_message(body)
    said = f"{what}: Planner answered {status}" + (f" ({message})" if message else "")
    return port_error(status, code, message, said=said)

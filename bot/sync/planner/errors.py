"""Graph's (and Entra's) failed answers as the port's errors (`bot.sync.source`)."""

from typing import Any

import orjson

from bot.sync.exchange import SHOWN, port_error
from bot.sync.source import SourceUnauthorized


def graph_message(body: str) -> tuple[str, str]:
    """The code and message of Graph's `{"error": {code, message}}` or Entra's
    `{error, error_description}` (empty when there is none)."""
    try:
        parsed: Any = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "", body[:SHOWN].strip()
    if not isinstance(parsed, dict):
        return "", ""
    error = parsed.get("error")
    if isinstance(error, dict):
        return str(error.get("code") or ""), str(error.get("message") or "")[:SHOWN]
    return str(error or ""), str(parsed.get("error_description") or "")[:SHOWN]


def failure(status: int, body: str, *, what: str) -> Exception:
    """The error for a non-2xx answer to `what`; 429 and 503 are `bot.sync.exchange`'s."""
    code, message = graph_message(body)
    said = f"{what}: Planner answered {status}" + (f" ({message})" if message else "")
    return port_error(status, code, message, said=said)


def token_failure(status: int, body: str, *, what: str) -> Exception:
    """The token endpoint's refusal: 400 and 401 are a wrong tenant, client or secret."""
    if status in (400, 401):
        _, message = graph_message(body)
        return SourceUnauthorized(f"{what}: Entra answered {status} ({message})")
    return failure(status, body, what=what)

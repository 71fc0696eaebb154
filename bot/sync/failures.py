"""A source's failed answer as the port's error (`bot.sync.source`), whatever the vendor: the
connectors read the vendor's code and message from its error body, this decides what it means."""

from bot.sync.source import (
    SourceError,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceUnauthorized,
)

THROTTLED = (429, 503)  # the clients' own: SourceThrottled, with the host held
SHOWN = 200  # characters of a vendor's message kept


def port_error(status: int, code: str, message: str, *, said: str) -> Exception:
    """The error for a non-2xx answer (`said`: the request and the status, without secrets)."""
    if status in (401, 403):
        return SourceUnauthorized(said)
    if status == 404:
        return SourceNotFound(said)
    if status == 412:
        return SourceStale(said)
    if 400 <= status < 500 and status != 408:  # 400 and the rest: this request, refused
        return SourceRefused(code or f"HTTP {status}", message or said)
    return SourceError(said)  # 408, 5xx: worth trying again

"""One request to a source, as every connector sends it: held back while the source's host asked
to be left alone, its 429/503 holding the host for the `Retry-After` given, its other failures
turned into the port's errors by the connector's own `failure`, and nothing secret in any message
(`clean` redacts what the vendor may echo)."""

import logging
from collections.abc import Callable
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.errors import Invalid
from bot.jobs.retry_after import retry_after
from bot.sync.pacer import LONGEST_WAIT, HostPacer
from bot.sync.source import (
    SourceError,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceThrottled,
    SourceUnauthorized,
)

log = logging.getLogger(__name__)

THROTTLED = (429, 503)

Failure = Callable[[int, str], Exception]  # (status, the answer's text) → the port's error
SHOWN = 200  # characters of a vendor's message kept


def port_error(status: int, code: str, message: str, *, said: str) -> Exception:
    """What a non-2xx answer (not 429/503) means, whatever the vendor: `code` and `message`
    read from its error body, `said` the request and the status (without secrets)."""
    if status in (401, 403):
        return SourceUnauthorized(said)
    if status == 404:
        return SourceNotFound(said)
    if status == 412:
        return SourceStale(said)
    if 400 <= status < 500 and status != 408:  # 400 and the rest: this request, refused
        return SourceRefused(code or f"HTTP {status}", message or said)
    return SourceError(said)  # 408, 5xx: worth trying again


async def send(
    http: aiohttp.ClientSession,
    method: str,
    url: URL,
    *,
    data: bytes | None,
    headers: dict[str, str],
    pacer: HostPacer,
    clock: Clock,
    vendor: str,
    what: str,
    failure: Failure,
    clean: Callable[[str], str],
) -> Any:
    """The answer's JSON (None when empty); `what` names the request in errors."""
    left = pacer.wait_left(host_of(url), clock=clock)
    if left is not None:
        raise SourceThrottled(
            f"{what}: {vendor} asked to wait; {left.total_seconds():.0f} s left",
            retry_after=left.total_seconds(),
        )
    try:
        async with http.request(
            method, url, data=data, headers=headers, allow_redirects=False
        ) as response:
            status, answer = response.status, await response.read()
            waited = response.headers.get("Retry-After")
    except Invalid as refused:  # the SSRF guard, at connection time
        raise SourceError(clean(f"{what}: {refused.why_said}")) from None
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        raise SourceError(clean(f"{what}: {type(exc).__name__} {exc}")) from None
    if status in THROTTLED:
        raise throttled(pacer, url, status, waited, clock=clock, vendor=vendor, what=what)
    if not 200 <= status < 300:
        raise failure(status, clean(answer.decode("utf-8", "replace")))
    if not answer.strip():
        return None
    try:
        return orjson.loads(answer)
    except orjson.JSONDecodeError:
        raise SourceError(f"{what}: {vendor} answered {status} with no JSON") from None


def host_of(url: URL) -> str:
    """The key a host is paced by."""
    return f"{url.host}:{url.port}"


def throttled(
    pacer: HostPacer,
    url: URL,
    status: int,
    waited: str | None,
    *,
    clock: Clock,
    vendor: str,
    what: str,
) -> SourceThrottled:
    """A 429 or 503 from `url`'s host (`waited` its `Retry-After`): nothing more goes there
    before the wait is over; the error to raise."""
    asked = retry_after(waited, now=clock.now(), cap=LONGEST_WAIT)
    wait = pacer.hold(host_of(url), asked, clock=clock)
    log.info("%s %s: %s, holding the host %.1f s", vendor, what, status, wait.total_seconds())
    return SourceThrottled(f"{what}: {vendor} answered {status}", retry_after=wait.total_seconds())

"""HTTP to one Jira Cloud site: Basic `email:api_token`, pacing, errors in the port's terms.

Every request goes through the SSRF-guarded client (`bot.sync.address.source_http`) and the
process's `HostPacer`: while the site asked to be left alone, nothing is sent and the call
raises `SourceThrottled` with the time left. The token travels only in the Authorization
header; no message, log line or error names it.
"""

import logging
from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.errors import Invalid
from bot.jobs.retry_after import retry_after
from bot.sync.jira.errors import THROTTLED, failure
from bot.sync.pacer import LONGEST_WAIT, HostPacer
from bot.sync.source import SourceError, SourceThrottled

log = logging.getLogger(__name__)

JSON = "application/json"


class JiraClient:
    def __init__(
        self,
        http: aiohttp.ClientSession,
        site: URL,
        *,
        email: str,
        token: str,
        clock: Clock,
        pacer: HostPacer,
    ) -> None:
        self.site = site
        self._http, self._clock, self._pacer = http, clock, pacer
        self._authorization = aiohttp.encode_basic_auth(email, token)
        self._token = token
        self._host = f"{site.host}:{site.port}"

    def url(self, *segments: str) -> URL:
        """`{site}/rest/api/3/…` with these path segments (each encoded as one segment)."""
        url = self.site / "rest" / "api" / "3"
        for segment in segments:
            url = url / segment
        return url

    async def call(
        self,
        method: str,
        url: URL,
        *,
        params: Mapping[str, str] | None = None,
        body: object = None,
        what: str,
    ) -> Any:
        """The answer's JSON (None when empty); `what` names the request in errors."""
        left = self._pacer.wait_left(self._host, clock=self._clock)
        if left is not None:
            raise SourceThrottled(
                f"{what}: Jira asked to wait; {left.total_seconds():.0f} s left",
                retry_after=left.total_seconds(),
            )
        data = orjson.dumps(body) if body is not None else None
        headers = {"Accept": JSON, "Authorization": self._authorization}
        if data is not None:
            headers["Content-Type"] = JSON
        try:
            async with self._http.request(
                method,
                url.update_query(params) if params else url,
                data=data,
                headers=headers,
                allow_redirects=False,
            ) as response:
                status, answer = response.status, await response.read()
                waited = response.headers.get("Retry-After")
        except Invalid as refused:  # the SSRF guard, at connection time
            raise SourceError(self._clean(f"{what}: {refused.why_said}")) from None
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise SourceError(self._clean(f"{what}: {type(exc).__name__} {exc}")) from None
        if status in THROTTLED:
            asked = retry_after(waited, now=self._clock.now(), cap=LONGEST_WAIT)
            wait = self._pacer.hold(self._host, asked, clock=self._clock)
            log.info("jira %s: %s, holding the host %.1f s", what, status, wait.total_seconds())
            raise SourceThrottled(
                f"{what}: Jira answered {status}", retry_after=wait.total_seconds()
            )
        if not 200 <= status < 300:
            raise failure(status, self._clean(answer.decode("utf-8", "replace")), what=what)
        if not answer.strip():
            return None
        try:
            return orjson.loads(answer)
        except orjson.JSONDecodeError:
            raise SourceError(f"{what}: Jira answered {status} with no JSON") from None

    def _clean(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

"""HTTP to one Azure DevOps organization: PAT auth, api-version, pacing, errors in the port's terms.

Every request goes through the SSRF-guarded client (`bot.sync.address.source_http`) and the
process's `HostPacer`: while a host asked to be left alone, nothing is sent and the call raises
`SourceThrottled` with the time left. The token travels only in the Authorization header; no
message, log line or error names it (a vendor's message that echoes it is redacted too).
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
from bot.sync.azure_devops.errors import THROTTLED, failure
from bot.sync.pacer import LONGEST_WAIT, HostPacer
from bot.sync.source import SourceError, SourceThrottled

log = logging.getLogger(__name__)

API_VERSION = "7.1"
JSON = "application/json"
JSON_PATCH = "application/json-patch+json"


class AzureDevOpsClient:
    def __init__(
        self,
        http: aiohttp.ClientSession,
        base_url: URL,
        token: str,
        *,
        clock: Clock,
        pacer: HostPacer,
    ) -> None:
        self.base_url = base_url
        self._http, self._clock, self._pacer = http, clock, pacer
        self._authorization = aiohttp.encode_basic_auth("", token)
        self._token = token
        self._host = f"{base_url.host}:{base_url.port}"

    def url(self, *segments: str) -> URL:
        """The base URL with these path segments (each encoded as one segment)."""
        url = self.base_url
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
        content_type: str = JSON,
        api_version: str = API_VERSION,
        what: str,
    ) -> Any:
        """The answer's JSON (None when empty); `what` names the request in errors."""
        left = self._pacer.wait_left(self._host, clock=self._clock)
        if left is not None:
            raise SourceThrottled(
                f"{what}: Azure DevOps asked to wait; {left.total_seconds():.0f} s left",
                retry_after=left.total_seconds(),
            )
        query = {**(params or {}), "api-version": api_version}
        data = orjson.dumps(body) if body is not None else None
        headers = {"Accept": JSON, "Authorization": self._authorization}
        if data is not None:
            headers["Content-Type"] = content_type
        try:
            async with self._http.request(
                method,
                url.update_query(query),
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
            log.info(
                "azure devops %s: %s, holding the host %.1f s", what, status, wait.total_seconds()
            )
            raise SourceThrottled(
                f"{what}: Azure DevOps answered {status}", retry_after=wait.total_seconds()
            )
        if not 200 <= status < 300:
            raise failure(status, self._clean(answer.decode("utf-8", "replace")), what=what)
        if not answer.strip():
            return None
        try:
            return orjson.loads(answer)
        except orjson.JSONDecodeError:
            raise SourceError(f"{what}: Azure DevOps answered {status} with no JSON") from None

    def _clean(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def listed(answer: Any) -> list[Any]:
    """A list answer: the service wraps arrays as `{count, value}` (the description says bare)."""
    if isinstance(answer, Mapping):
        answer = answer.get("value")
    return list(answer) if isinstance(answer, list) else []

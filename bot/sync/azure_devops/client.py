"""HTTP to one Azure DevOps organization: PAT auth, api-version, errors in the port's terms.

Every request goes through the SSRF-guarded client (`bot.sync.address.source_http`) and
`bot.sync.exchange.send` (the process's `HostPacer`, 429s). The token travels only in the
Authorization header; no message, log line or error names it (a vendor's message that echoes it
is redacted too).
"""

from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.sync.azure_devops.errors import failure
from bot.sync.exchange import send
from bot.sync.pacer import HostPacer

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
        query = {**(params or {}), "api-version": api_version}
        data = orjson.dumps(body) if body is not None else None
        headers = {"Accept": JSON, "Authorization": self._authorization}
        if data is not None:
            headers["Content-Type"] = content_type
        return await send(
            self._http,
            method,
            url.update_query(query),
            data=data,
            headers=headers,
            pacer=self._pacer,
            clock=self._clock,
            vendor="Azure DevOps",
            what=what,
            failure=lambda status, text: failure(status, text, what=what),
            clean=self._clean,
        )

    def _clean(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def listed(answer: Any) -> list[Any]:
    """A list answer: the service wraps arrays as `{count, value}` (the description says bare)."""
    if isinstance(answer, Mapping):
        answer = answer.get("value")
    return list(answer) if isinstance(answer, list) else []

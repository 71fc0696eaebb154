"""HTTP to one Jira Cloud site: Basic `email:api_token`, pacing, errors in the port's terms.

Every request goes through the SSRF-guarded client (`bot.sync.address.source_http`) and
`bot.sync.exchange.send` (the process's `HostPacer`, 429s). The token travels only in the
Authorization header; no message, log line or error names it.
"""

from collections.abc import Mapping
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.sync.exchange import send
from bot.sync.jira.errors import failure
from bot.sync.pacer import HostPacer

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
        data = orjson.dumps(body) if body is not None else None
        headers = {"Accept": JSON, "Authorization": self._authorization}
        if data is not None:
            headers["Content-Type"] = JSON
        return await send(
            self._http,
            method,
            url.update_query(params) if params else url,
            data=data,
            headers=headers,
            pacer=self._pacer,
            clock=self._clock,
            vendor="Jira",
            what=what,
            failure=lambda status, text: failure(status, text, what=what),
            clean=self._clean,
        )

    def _clean(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

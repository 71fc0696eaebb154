"""HTTP to Microsoft Graph for one app registration: a bearer token from the client-credentials
flow (`tokens`), pacing, errors in the port's terms.

A 401 from Graph may only mean the token expired early (or was revoked): the token is dropped
and the request sent once more with a fresh one; a second 401, or the token endpoint refusing
the credentials, is `SourceUnauthorized`. Every request goes through the SSRF-guarded client and
the process's `HostPacer`. The secret travels only in the token request's form; the token only
in the Authorization header; neither appears in a message."""

import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.errors import Invalid
from bot.jobs.retry_after import retry_after
from bot.sync.pacer import LONGEST_WAIT, HostPacer
from bot.sync.planner.errors import THROTTLED, failure, graph_message
from bot.sync.planner.tokens import Token, TokenCache
from bot.sync.source import SourceError, SourceThrottled, SourceUnauthorized

log = logging.getLogger(__name__)

JSON = "application/json"
SCOPE = "https://graph.microsoft.com/.default"


@dataclass(frozen=True, slots=True)
class Credentials:
    authority: URL  # ENTRA_AUTHORITY_URL, checked by the address rule
    tenant_id: str
    client_id: str
    client_secret: str


@dataclass(frozen=True, slots=True)
class Answer:
    body: Any  # the JSON, or None when empty
    etag: str | None


class GraphClient:
    def __init__(
        self,
        http: aiohttp.ClientSession,
        base_url: URL,
        credentials: Credentials,
        *,
        cache: TokenCache,
        clock: Clock,
        pacer: HostPacer,
    ) -> None:
        self.base_url = base_url
        self._http, self._credentials, self._cache = http, credentials, cache
        self._clock, self._pacer = clock, pacer

    @property
    def client_id(self) -> str:
        """The app registration's id: Graph names the app by it in `createdBy`."""
        return self._credentials.client_id

    def url(self, *segments: str) -> URL:
        url = self.base_url
        for segment in segments:
            url = url / segment
        return url

    def within(self, link: str) -> URL:
        """A link Graph answered (`@odata.nextLink`), followed only when it is under the base."""
        url = URL(link)
        base = self.base_url
        if (url.scheme, url.host, url.port) != (base.scheme, base.host, base.port) or not (
            url.path.startswith(base.path.rstrip("/") + "/")
        ):
            raise SourceError("Planner answered a next link outside its address")
        return url

    async def call(
        self,
        method: str,
        url: URL,
        *,
        body: object = None,
        if_match: str | None = None,
        representation: bool = False,
        what: str,
    ) -> Answer:
        headers = {"Accept": JSON}
        if if_match is not None:
            headers["If-Match"] = if_match
        if representation:
            headers["Prefer"] = "return=representation"
        data = None
        if body is not None:
            data, headers["Content-Type"] = orjson.dumps(body), JSON
        for fresh_try in (False, True):
            token = await self._cache.token(self._fetch_token, clock=self._clock)
            headers["Authorization"] = f"Bearer {token}"
            status, answer, response_headers = await self._send(method, url, data, headers, what)
            if status != 401 or fresh_try:
                break
            self._cache.refused(token)  # expired early or revoked: one more try, fresh
        if not 200 <= status < 300:
            raise failure(status, answer, what=what)
        etag = response_headers.get("ETag")
        if not answer.strip():
            return Answer(None, etag)
        try:
            return Answer(orjson.loads(answer), etag)
        except orjson.JSONDecodeError:
            raise SourceError(f"{what}: Planner answered {status} with no JSON") from None

    async def _fetch_token(self) -> Token:
        credentials = self._credentials
        form = {
            "grant_type": "client_credentials",
            "client_id": credentials.client_id,
            "client_secret": credentials.client_secret,
            "scope": SCOPE,
        }
        url = credentials.authority / credentials.tenant_id / "oauth2" / "v2.0" / "token"
        what = "get a Microsoft Graph token"
        status, answer, _ = await self._send("POST", url, form, {"Accept": JSON}, what)
        if status in (400, 401):  # a wrong tenant, client or secret
            _, message = graph_message(answer)
            raise SourceUnauthorized(f"{what}: Entra answered {status} ({message})")
        if not 200 <= status < 300:
            raise failure(status, answer, what=what)
        try:
            parsed = orjson.loads(answer)
            lifetime = timedelta(seconds=int(parsed["expires_in"]))
            return Token(str(parsed["access_token"]), self._clock.now() + lifetime)
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            raise SourceError(f"{what}: Entra answered {status} with no token") from None

    async def _send(
        self, method: str, url: URL, data: Any, headers: dict[str, str], what: str
    ) -> tuple[int, bytes, Any]:
        host = f"{url.host}:{url.port}"
        left = self._pacer.wait_left(host, clock=self._clock)
        if left is not None:
            raise SourceThrottled(
                f"{what}: Planner asked to wait; {left.total_seconds():.0f} s left",
                retry_after=left.total_seconds(),
            )
        try:
            async with self._http.request(
                method, url, data=data, headers=headers, allow_redirects=False
            ) as response:
                status, answer = response.status, await response.read()
                response_headers = response.headers
        except Invalid as refused:  # the SSRF guard, at connection time
            raise SourceError(f"{what}: {refused.why_said}") from None
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise SourceError(f"{what}: {type(exc).__name__} {exc}") from None
        if status in THROTTLED:
            asked = retry_after(
                response_headers.get("Retry-After"), now=self._clock.now(), cap=LONGEST_WAIT
            )
            wait = self._pacer.hold(host, asked, clock=self._clock)
            log.info("planner %s: %s, holding the host %.1f s", what, status, wait.total_seconds())
            raise SourceThrottled(
                f"{what}: Planner answered {status}", retry_after=wait.total_seconds()
            )
        return status, answer, response_headers

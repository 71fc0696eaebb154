"""HTTP to Microsoft Graph for one app registration: a bearer token from the client-credentials
flow (`tokens`), and every request through `bot.sync.exchange.send` (the SSRF-guarded client,
the process's `HostPacer`, 429s) with Graph's errors in the port's terms.

A 401 from Graph may only mean the token expired early (or was revoked): the token is dropped
and the request sent once more with a fresh one; a second refusal, or the token endpoint
refusing the credentials, is `SourceUnauthorized`. The secret travels only in the token
request's form, the token only in the Authorization header; neither appears in a message."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

import aiohttp
import orjson
from yarl import URL

from bot.clock import Clock
from bot.sync.exchange import Failure, send, throttled
from bot.sync.pacer import HostPacer
from bot.sync.planner.errors import failure, token_failure
from bot.sync.planner.tokens import Token, TokenCache
from bot.sync.source import SourceError, SourceThrottled, SourceUnauthorized

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
SCOPE = "https://graph.microsoft.com/.default"


@dataclass(frozen=True, slots=True)
class Credentials:
    authority: URL  # ENTRA_AUTHORITY_URL, checked by the address rule
    tenant_id: str
    client_id: str
    client_secret: str


@dataclass(frozen=True, slots=True)
class Answer:
    """One request's answer inside a JSON batch."""

    status: int
    headers: Mapping[str, str]  # names in lower case
    body: Any

    @classmethod
    def of(cls, found: Any) -> "Answer":
        """An entry of the batch's `responses` (one missing or malformed: a 502 to try again)."""
        if not isinstance(found, dict) or not isinstance(found.get("status"), int):
            return cls(502, {}, None)
        headers = found.get("headers")
        named = (
            {str(k).lower(): str(v) for k, v in headers.items()}
            if isinstance(headers, dict)
            else {}
        )
        return cls(found["status"], named, found.get("body"))


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
    ) -> Any:
        """The answer's JSON (None when empty); `what` names the request in errors."""
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
            try:
                return await self._send(method, url, data, headers, what, failure)
            except SourceUnauthorized:
                if fresh_try:
                    raise
                self._cache.refused(token)  # expired early or revoked: one more try, fresh
        raise AssertionError("unreachable: the second try returns or raises")

    async def batch(self, paths: Sequence[str], *, what: str) -> list[Answer]:
        """GETs of `paths` (under the version: `/planner/tasks/{id}/details`) in one JSON batch
        (`POST /$batch`, at most 20 requests): the answers in the order of `paths`."""
        asked = [{"id": str(n), "method": "GET", "url": path} for n, path in enumerate(paths, 1)]
        answer = await self.call("POST", self.url("$batch"), body={"requests": asked}, what=what)
        listed = answer.get("responses") if isinstance(answer, dict) else None
        by_id = {str(r.get("id")): r for r in listed or [] if isinstance(r, dict)}
        return [Answer.of(by_id.get(request["id"])) for request in asked]

    def throttled(self, answer: Answer, *, what: str) -> SourceThrottled:
        """A 429 or 503 inside a batch holds the host as one outside would."""
        waited = answer.headers.get("retry-after")
        return throttled(
            self._pacer,
            self.base_url,
            answer.status,
            waited,
            clock=self._clock,
            vendor="Planner",
            what=what,
        )

    def refused(self, answer: Answer, *, what: str) -> Exception:
        """Any other failure inside a batch, in the port's terms."""
        text = orjson.dumps(answer.body).decode() if answer.body is not None else ""
        return failure(answer.status, self._clean(text), what=what)

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
        headers = {"Accept": JSON, "Content-Type": FORM}
        answer = await self._send(
            "POST", url, urlencode(form).encode(), headers, what, token_failure
        )
        try:
            lifetime = timedelta(seconds=int(answer["expires_in"]))
            return Token(str(answer["access_token"]), self._clock.now() + lifetime)
        except (KeyError, TypeError, ValueError):
            raise SourceError(f"{what}: Entra answered with no token") from None

    async def _send(
        self,
        method: str,
        url: URL,
        data: bytes | None,
        headers: dict[str, str],
        what: str,
        refused: Any,
    ) -> Any:
        meaning: Failure = lambda status, text: refused(status, text, what=what)  # noqa: E731
        return await send(
            self._http,
            method,
            url,
            data=data,
            headers=headers,
            pacer=self._pacer,
            clock=self._clock,
            vendor="Planner",
            what=what,
            failure=meaning,
            clean=self._clean,
        )

    def _clean(self, text: str) -> str:
        secret = self._credentials.client_secret
        return text.replace(secret, "***") if secret else text

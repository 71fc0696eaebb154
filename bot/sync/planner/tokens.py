"""Microsoft Graph tokens for one app registration (client-credentials flow), kept until they
expire and fetched once for everyone waiting: the first caller to find none starts the request,
the others await the same one (its token or its error). One cache per process (`TOKENS`), since
the engine opens a connector per job."""

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.clock import Clock

# A token is dropped this long before Entra says it expires, so none expires on the way.
EARLY = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    expires_at: datetime


Fetch = Callable[[], Awaitable[Token]]


class TokenCache:
    def __init__(self) -> None:
        self._held: Token | None = None
        self._pending: asyncio.Task[Token] | None = None

    async def token(self, fetch: Fetch, *, clock: Clock) -> str:
        held = self._held
        if held is not None and clock.now() < held.expires_at - EARLY:
            return held.value
        if self._pending is None:
            self._pending = asyncio.get_running_loop().create_task(self._fetch(fetch))
        # Shielded: a waiter given up on (a job cancelled) does not cancel the others' request.
        return (await asyncio.shield(self._pending)).value

    async def _fetch(self, fetch: Fetch) -> Token:
        try:
            self._held = await fetch()
            return self._held
        finally:
            self._pending = None

    def refused(self, value: str) -> None:
        """Graph refused this token (expired early, revoked): the next caller fetches another;
        a token fetched since is kept."""
        if self._held is not None and self._held.value == value:
            self._held = None


class Tokens:
    """The process's caches, one per authority, tenant, client and secret."""

    def __init__(self) -> None:
        self._caches: dict[tuple[str, str, str, str], TokenCache] = {}

    def cache(self, authority: str, tenant: str, client: str, secret: str) -> TokenCache:
        # The secret only as a digest: a new secret gets a new cache, and none is kept in clear.
        digest = hashlib.sha256(secret.encode()).hexdigest()
        return self._caches.setdefault((authority, tenant, client, digest), TokenCache())


TOKENS = Tokens()

"""Token signing keys fetched from a URL: cached, refetched, and never a queue of waiters.

Teams SSO (`sso.JwksKeys`) and the Bot Framework endpoint
(`teams.transport.signing_keys.OpenIdKeys`) both check signatures with published keys; this holds
the rules they share.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Generic, TypeVar

from bot.clock import Clock

log = logging.getLogger(__name__)

Key = TypeVar("Key")

KEYS_MAX_AGE = timedelta(hours=24)
# An unknown key id triggers a refetch (keys rotate), but not more often than this.
REFETCH_AFTER = timedelta(minutes=5)
# After a failed fetch, callers are answered at once (without the key) for this long, rather
# than each waiting for a key server that hangs or fails.
FAILURE_MEMORY = timedelta(seconds=30)
# The whole fetch (an OpenID document, then its key set) is bounded once.
FETCH_TIMEOUT_SECONDS = 10


class KeysUnavailable(Exception):
    """A fetch failed: the server did not answer, or not with a key set."""


class KeyCache(Generic[Key]):
    """Keys by id, loaded by `load`; one fetch at a time, shared by every caller that needs it."""

    def __init__(
        self, load: Callable[[], Awaitable[dict[str, Key]]], clock: Clock, *, source: str
    ) -> None:
        self._load, self._clock, self._source = load, clock, source
        self._keys: dict[str, Key] = {}
        self._fetched_at: datetime | None = None
        self._failed_at: datetime | None = None
        self._fetch: asyncio.Task[None] | None = None

    @property
    def failing(self) -> bool:
        """The last fetch failed, and callers are answered without another for now."""
        return self._failed_at is not None and not self._stale(self._failed_at, FAILURE_MEMORY)

    async def find(self, key_id: str) -> Key | None:
        """The key with this id, fetching the set first when due; None if there is none."""
        if self._needs_fetch(key_id):
            if self._fetch is None or self._fetch.done():
                self._fetch = asyncio.create_task(self._fetch_keys())
            # Shielded: a caller that goes away does not cancel the others' fetch.
            await asyncio.shield(self._fetch)
        return self._keys.get(key_id)

    def _needs_fetch(self, key_id: str) -> bool:
        if self.failing:
            return False
        if self._stale(self._fetched_at, KEYS_MAX_AGE):
            return True
        return key_id not in self._keys and self._stale(self._fetched_at, REFETCH_AFTER)

    def _stale(self, since: datetime | None, age: timedelta) -> bool:
        return since is None or self._clock.now() - since >= age

    async def _fetch_keys(self) -> None:
        try:
            async with asyncio.timeout(FETCH_TIMEOUT_SECONDS):
                keys = await self._load()
        except (KeysUnavailable, TimeoutError) as exc:
            log.warning("could not load signing keys from %s: %s", self._source, exc or "timeout")
            self._failed_at = self._clock.now()
            return
        self._keys, self._fetched_at, self._failed_at = keys, self._clock.now(), None

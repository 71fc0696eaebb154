"""Bot Framework signing keys from OpenID metadata, fetched with aiohttp for the SDK's validator.

botbuilder 4.17 fetches these with blocking `requests` calls on the event loop; an object with
the same `get(key_id)` placed in its metadata cache keeps the loop free and the keys testable.
"""

import asyncio
import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor
from jwt.algorithms import RSAAlgorithm

from bot.clock import Clock

log = logging.getLogger(__name__)

KEYS_MAX_AGE = timedelta(hours=24)
# An unknown key id triggers a refetch (keys rotate), but not more often than this.
REFETCH_AFTER = timedelta(minutes=5)
FETCH_TIMEOUT = aiohttp.ClientTimeout(total=10)


@dataclass(frozen=True, slots=True)
class BotSigningKey:
    """What the SDK's JwtTokenExtractor reads from a metadata entry."""

    public_key: Any
    endorsements: list[str] = field(default_factory=list)


class OpenIdKeys:
    """The keys published at an OpenID metadata URL's `jwks_uri`, cached and refetched."""

    def __init__(self, http: aiohttp.ClientSession, metadata_url: str, clock: Clock) -> None:
        self._http, self.metadata_url, self._clock = http, metadata_url, clock
        self._keys: dict[str, BotSigningKey] = {}
        self._fetched_at: datetime | None = None
        self._lock = asyncio.Lock()

    async def get(self, key_id: str | None) -> BotSigningKey:
        """The key, or PermissionError (which the endpoint answers with 401)."""
        if self._needs_fetch(key_id):
            async with self._lock:
                if self._needs_fetch(key_id):
                    await self._fetch()
        key = self._keys.get(key_id or "")
        if key is None:
            raise PermissionError("token signed with an unknown key")
        return key

    def _needs_fetch(self, key_id: str | None) -> bool:
        if self._stale(KEYS_MAX_AGE):
            return True
        return (key_id or "") not in self._keys and self._stale(REFETCH_AFTER)

    def _stale(self, age: timedelta) -> bool:
        return self._fetched_at is None or self._clock.now() - self._fetched_at >= age

    async def _fetch(self) -> None:
        try:
            metadata = await self._json(self.metadata_url)
            document = await self._json(metadata["jwks_uri"])
            keys = {
                entry["kid"]: BotSigningKey(
                    RSAAlgorithm.from_jwk(json.dumps(entry)), list(entry.get("endorsements", []))
                )
                for entry in document["keys"]
                if entry.get("kid") and entry.get("kty") == "RSA"
            }
        except (aiohttp.ClientError, TimeoutError, ValueError, KeyError, TypeError) as exc:
            log.warning("could not load bot signing keys from %s: %s", self.metadata_url, exc)
            raise PermissionError("cannot load the signing keys") from exc
        self._keys, self._fetched_at = keys, self._clock.now()

    async def _json(self, url: str) -> Any:
        async with self._http.get(url, timeout=FETCH_TIMEOUT) as response:
            response.raise_for_status()
            return await response.json(content_type=None)


def install(keys: OpenIdKeys) -> None:
    """Let the SDK's validator use these keys for their metadata URL."""
    JwtTokenExtractor.metadataCache[keys.metadata_url] = keys


def uninstall(keys: OpenIdKeys) -> None:
    if JwtTokenExtractor.metadataCache.get(keys.metadata_url) is keys:
        del JwtTokenExtractor.metadataCache[keys.metadata_url]

"""Bot Framework signing keys from OpenID metadata, fetched with aiohttp for the SDK's validator.

botbuilder 4.17 fetches these with blocking `requests` calls on the event loop; an object with
the same `get(key_id)` placed in its metadata cache keeps the loop free and the keys testable.
"""

import json
import logging
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from botframework.connector.auth.jwt_token_extractor import JwtTokenExtractor
from jwt.algorithms import RSAAlgorithm

from bot.auth.key_cache import KeyCache, KeysUnavailable
from bot.clock import Clock

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class BotSigningKey:
    """What the SDK's JwtTokenExtractor reads from a metadata entry."""

    public_key: Any
    endorsements: list[str] = field(default_factory=list)


class OpenIdKeys:
    """The keys published at an OpenID metadata URL's `jwks_uri`, cached and refetched."""

    def __init__(self, http: aiohttp.ClientSession, metadata_url: str, clock: Clock) -> None:
        self._http, self.metadata_url = http, metadata_url
        self._cache = KeyCache(self._load, clock, source=metadata_url)

    async def get(self, key_id: str | None) -> BotSigningKey:
        """The key, or PermissionError (which the endpoint answers with 401)."""
        key = await self._cache.find(key_id or "")
        if key is None:
            raise PermissionError(
                "cannot load the signing keys"
                if self._cache.failing
                else "token signed with an unknown key"
            )
        return key

    async def _load(self) -> dict[str, BotSigningKey]:
        try:
            metadata = await self._json(self.metadata_url)
            document = await self._json(metadata["jwks_uri"])
            return {
                entry["kid"]: BotSigningKey(
                    RSAAlgorithm.from_jwk(json.dumps(entry)), list(entry.get("endorsements", []))
                )
                for entry in document["keys"]
                if entry.get("kid") and entry.get("kty") == "RSA"
            }
        except (aiohttp.ClientError, ValueError, KeyError, TypeError) as exc:
            raise KeysUnavailable(f"{type(exc).__name__}: {exc}") from exc

    async def _json(self, url: str) -> Any:
        async with self._http.get(url) as response:
            response.raise_for_status()
            return await response.json(content_type=None)


def install(keys: OpenIdKeys) -> None:
    """Let the SDK's validator use these keys for their metadata URL."""
    JwtTokenExtractor.metadataCache[keys.metadata_url] = keys


def uninstall(keys: OpenIdKeys) -> None:
    if JwtTokenExtractor.metadataCache.get(keys.metadata_url) is keys:
        del JwtTokenExtractor.metadataCache[keys.metadata_url]

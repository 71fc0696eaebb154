"""Validate Microsoft Entra ID tokens from the Teams client SDK against the tenant's JWKS."""

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import aiohttp
import jwt

from bot.auth.key_cache import KeyCache, KeysUnavailable
from bot.clock import Clock
from bot.errors import Unauthorized

log = logging.getLogger(__name__)

ALGORITHMS = ["RS256"]
CLOCK_SKEW = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class SsoIdentity:
    tenant_id: str
    object_id: str
    username: str
    display_name: str
    email: str | None


class JwksKeys:
    """The signing keys at a JWKS URL, cached, refetched on expiry or an unknown key id."""

    def __init__(self, http: aiohttp.ClientSession, url: str, clock: Clock) -> None:
        self._http, self._url = http, url
        self._cache = KeyCache(self._load, clock, source=url)

    async def get(self, kid: str) -> jwt.PyJWK:
        key = await self._cache.find(kid)
        if key is not None:
            return key
        if self._cache.failing:
            raise Unauthorized("Cannot load the token signing keys; try again later.")
        raise Unauthorized("Token signed with an unknown key.")

    async def _load(self) -> dict[str, jwt.PyJWK]:
        try:
            async with self._http.get(self._url) as response:
                response.raise_for_status()
                document = await response.json(content_type=None)
            if not isinstance(document, dict):  # PyJWKSet.from_dict would fail with AttributeError
                raise ValueError("the JWKS document is not a JSON object")
            key_set = jwt.PyJWKSet.from_dict(document)
        except (aiohttp.ClientError, ValueError, jwt.PyJWTError) as exc:
            raise KeysUnavailable(str(exc)) from exc
        return {key.key_id: key for key in key_set.keys if key.key_id}


async def verify_teams_token(
    token: str,
    *,
    keys: JwksKeys,
    issuer_template: str,
    audiences: list[str],
    clock: Clock,
) -> SsoIdentity:
    """Check signature, issuer, audience and lifetime; return who the token speaks for."""
    if not audiences:
        raise Unauthorized("Teams SSO is not configured: set SSO_AUDIENCE or MicrosoftAppId.")
    try:
        header = jwt.get_unverified_header(token)
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise Unauthorized("The SSO token is not a valid JWT.") from None
    if header.get("alg") not in ALGORITHMS or not header.get("kid"):
        raise Unauthorized("The SSO token must be RS256-signed with a key id.")
    # The issuer depends on the tenant, so tid is read before the signature is checked.
    tenant_id = str(unverified.get("tid") or "")
    if not tenant_id:
        raise Unauthorized("The SSO token has no tenant (tid).")
    key = await keys.get(str(header["kid"]))
    try:
        claims = jwt.decode(
            token,
            key.key,
            algorithms=ALGORITHMS,
            audience=audiences,
            issuer=issuer_template.replace("{tenantid}", tenant_id),
            # Lifetime is checked below against the injected clock, with skew; PyJWT would check
            # iat against the system clock with none.
            options={
                "require": ["exp", "iss", "aud"],
                "verify_exp": False,
                "verify_nbf": False,
                "verify_iat": False,
            },
        )
    except jwt.InvalidAudienceError:
        raise Unauthorized("The SSO token was issued for another application.") from None
    except jwt.InvalidIssuerError:
        raise Unauthorized("The SSO token has the wrong issuer.") from None
    except jwt.InvalidSignatureError:
        raise Unauthorized("The SSO token signature is invalid.") from None
    except jwt.PyJWTError as exc:
        raise Unauthorized(f"The SSO token is invalid: {exc}.") from None
    _check_lifetime(claims, clock.now())
    return _identity(claims, tenant_id)


def _check_lifetime(claims: dict, now: datetime) -> None:
    if now >= _instant(claims, "exp") + CLOCK_SKEW:
        raise Unauthorized("The SSO token has expired.")
    # Entra sets nbf and iat to the issue time; neither may lie beyond the skew in our future.
    for name in ("nbf", "iat"):
        if name in claims and now + CLOCK_SKEW < _instant(claims, name):
            raise Unauthorized("The SSO token is not valid yet.")


def _instant(claims: dict, name: str) -> datetime:
    """A NumericDate claim as an aware datetime; anything else refuses the token."""
    value = claims[name]
    # JSON numbers only (bool is an int to Python); a huge one overflows datetime.
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (ValueError, OverflowError, OSError):
            pass
    raise Unauthorized(f"The SSO token's {name} claim is not a time.")


def _identity(claims: dict, tenant_id: str) -> SsoIdentity:
    object_id = claims.get("oid")
    username = claims.get("preferred_username") or claims.get("upn")
    if not object_id or not username:
        raise Unauthorized("The SSO token lacks the oid or preferred_username claim.")
    return SsoIdentity(
        tenant_id=tenant_id,
        object_id=str(object_id),
        username=str(username),
        display_name=str(claims.get("name") or username),
        email=claims.get("email"),
    )

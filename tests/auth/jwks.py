"""A local stand-in for Microsoft Entra ID: RSA signing keys, a JWKS endpoint, and its tokens."""

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import jwt
from aiohttp import web
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.factories import TENANT

AUDIENCE = "api://tracker.test/11111111-2222-3333-4444-555555555555"
ISSUER = "https://login.microsoftonline.com/{tenantid}/v2.0"
OBJECT_ID = "9f1c2b3a-4d5e-4f60-8a7b-0c1d2e3f4a5b"
TOKEN_LIFETIME = timedelta(hours=1)


@dataclass(frozen=True)
class SigningKey:
    """An RSA key pair published under a key id (2048 bits, so PyJWT does not warn)."""

    kid: str
    private: rsa.RSAPrivateKey

    @classmethod
    def generate(cls, kid: str) -> "SigningKey":
        return cls(kid, rsa.generate_private_key(public_exponent=65537, key_size=2048))

    def jwk(self) -> dict[str, Any]:
        """The public half as Entra publishes it."""
        public = RSAAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**public, "kid": self.kid, "use": "sig", "alg": "RS256"}

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )

    def sign(self, claims: dict[str, Any], **header: Any) -> str:
        """An RS256 token under this key's id; header overrides (None drops one) can lie."""
        fields = {name: value for name, value in {"kid": self.kid, **header}.items() if value}
        return jwt.encode(claims, self.private, algorithm="RS256", headers=fields)


def entra_claims(now: datetime, **overrides: Any) -> dict[str, Any]:
    """The claims of a Teams SSO (v2.0) token issued at `now`; an override of None drops a claim."""
    issued = int(now.timestamp())
    claims: dict[str, Any] = {
        "aud": AUDIENCE,
        "iss": ISSUER.format(tenantid=TENANT),
        "iat": issued,
        "nbf": issued,
        "exp": issued + int(TOKEN_LIFETIME.total_seconds()),
        "tid": TENANT,
        "oid": OBJECT_ID,
        "sub": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ",
        "name": "Ada Lovelace",
        "preferred_username": "Ada.Lovelace@Contoso.test",
        "email": "ada@contoso.test",
        "scp": "access_as_user",
        "ver": "2.0",
    }
    claims.update(overrides)
    return {name: value for name, value in claims.items() if value is not None}


def unsigned_token(claims: dict[str, Any], *, kid: str) -> str:
    """An `alg: none` token: no signature at all."""
    return jwt.encode(claims, None, algorithm="none", headers={"kid": kid})


def hs256_token(claims: dict[str, Any], *, secret: bytes, kid: str) -> str:
    """An HS256 token built by hand, since PyJWT refuses a public key as an HMAC secret."""
    header = _segment({"alg": "HS256", "typ": "JWT", "kid": kid})
    signing_input = f"{header}.{_segment(claims)}"
    signature = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


@dataclass
class JwksEndpoint:
    """What the JWKS server publishes and how it answers; counts the fetches."""

    keys: list[SigningKey]
    status: int = 200
    document: Any = None  # when set, served instead of the key set
    fetches: int = field(default=0, init=False)

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/keys", self._serve)
        return app

    async def _serve(self, request: web.Request) -> web.Response:
        self.fetches += 1
        if self.status != 200:
            return web.json_response({"error": "unavailable"}, status=self.status)
        if self.document is not None:
            return web.json_response(self.document)
        return web.json_response({"keys": [key.jwk() for key in self.keys]})


def _segment(value: dict[str, Any]) -> str:
    return _b64(json.dumps(value, separators=(",", ":")).encode())


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

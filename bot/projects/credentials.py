"""Project credentials at rest: Fernet (AES-128-CBC + HMAC) under a key derived from SECRET_KEY."""

import base64
from functools import cache

import orjson
from cryptography.fernet import Fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# Binds the derived key to this one use, so SECRET_KEY's other uses never share it.
PURPOSE = b"teams-tracker project credentials v1"


@cache
def _fernet(secret_key: str) -> Fernet:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=PURPOSE).derive(
        secret_key.encode()
    )
    return Fernet(base64.urlsafe_b64encode(key))


def seal(secret_key: str, secrets: dict[str, str]) -> str | None:
    """The secrets encrypted for storage; None when there are none."""
    if not secrets:
        return None
    return _fernet(secret_key).encrypt(orjson.dumps(secrets)).decode()


def unseal(secret_key: str, sealed: str | None) -> dict[str, str]:
    """What `seal` stored (for the sync that will use it); raises if the key changed."""
    if sealed is None:
        return {}
    result: dict[str, str] = orjson.loads(_fernet(secret_key).decrypt(sealed.encode()))
    return result

"""Signing secrets of HTTP rules, written the Standard Webhooks way."""

import base64
import secrets

PREFIX = "whsec_"
SECRET_BYTES = 24
# After a rotation the old secret keeps signing this long, so receivers can switch over.
OVERLAP_HOURS = 24


def new_secret() -> str:
    """`whsec_` + base64 of 24 random bytes."""
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()

"""Object ids: 24 lowercase hex characters, a 4-byte seconds timestamp then 8 random bytes."""

import re
import secrets
import time

ID_PATTERN = re.compile(r"^[0-9a-f]{24}$")


def new_id() -> str:
    return f"{int(time.time()) & 0xFFFFFFFF:08x}{secrets.token_hex(8)}"


def new_ids(count: int) -> list[str]:
    """`count` new ids at once: one read of the system's randomness for all of them."""
    stamp = f"{int(time.time()) & 0xFFFFFFFF:08x}"
    random = secrets.token_hex(8 * count)
    return [stamp + random[at : at + 16] for at in range(0, 16 * count, 16)]


def is_id(value: str) -> bool:
    return bool(ID_PATTERN.match(value))

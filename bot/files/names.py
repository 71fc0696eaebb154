"""What an upload's name and type may be once stored: a base name, and a plain media type."""

import re
import unicodedata

MAX_NAME_LENGTH = 255  # the column
FALLBACK_NAME = "attachment"
FALLBACK_TYPE = "application/octet-stream"
REPLACEMENT = "\ufffd"  # U+FFFD, for a byte that was not UTF-8
_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$")


def stored_name(raw: str | None) -> str:
    """The upload's base name: what follows its last `/` or `\\`, without control or format
    characters (NUL, newlines, bidirectional overrides), trimmed; never a path. Bytes that were
    not UTF-8 (aiohttp hands them on as lone surrogates, which no column holds) are U+FFFD."""
    base = re.split(r"[/\\]", raw or "")[-1]
    kept = "".join(c for c in utf8_text(base) if unicodedata.category(c) not in ("Cc", "Cf"))
    name = kept.strip()
    if name in ("", ".", ".."):
        return FALLBACK_NAME
    if len(name) > MAX_NAME_LENGTH:
        stem, dot, extension = name.rpartition(".")
        keep = dot + extension if dot and len(extension) < 16 else ""
        name = name[: MAX_NAME_LENGTH - len(keep)] + keep
    return name


def utf8_text(text: str) -> str:
    """`text` with U+FFFD for each lone surrogate: what aiohttp makes of a part header's bytes
    that are not UTF-8, and what neither a column nor a JSON answer can hold."""
    if text.isascii():
        return text
    return "".join(REPLACEMENT if unicodedata.category(c) == "Cs" else c for c in text)


def stored_type(raw: str | None) -> str:
    """The part's media type without parameters, if it is a well-formed one; else bytes."""
    value = (raw or "").split(";", 1)[0].strip().lower()
    return value if _MEDIA_TYPE.match(value) else FALLBACK_TYPE

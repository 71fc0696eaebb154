"""The app's own item links (`https://<domain>/bugs/<_id>`), which the messaging extension
unfurls and search results open."""

import re
from urllib.parse import urlsplit

from bot.schemas import ItemKind

_PATH = re.compile(r"/(bugs|tasks)/([0-9a-f]{24})/?")


def item_link(public_url: str, kind: ItemKind, item_id: str) -> str:
    return f"{public_url.rstrip('/')}/{kind.plural}/{item_id}"


def parse_item_link(url: str) -> tuple[ItemKind, str] | None:
    """The kind and `_id` an item link names; None for any other URL."""
    match = _PATH.fullmatch(urlsplit(url).path)
    if match is None:
        return None
    return ItemKind(match.group(1).removesuffix("s")), match.group(2)

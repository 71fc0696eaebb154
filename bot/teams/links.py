"""The app's own item links (`https://<domain>/bugs/<_id>`), which the messaging extension
unfurls and search results open."""

import re
from urllib.parse import urlsplit

from bot.schemas import ItemKind

_PATH = re.compile(r"/(bugs|tasks)/([0-9a-f]{24})/?")


def item_link(public_url: str, kind: ItemKind, item_id: str) -> str:
    return f"{public_url.rstrip('/')}/{kind.plural}/{item_id}"


def parse_item_link(public_url: str, url: str) -> tuple[ItemKind, str] | None:
    """The kind and `_id` an item link under `public_url` names; None for any other URL (another
    host's `/bugs/…` included)."""
    base, link = urlsplit(public_url), urlsplit(url)
    prefix = base.path.rstrip("/")
    if link.netloc.lower() != base.netloc.lower() or not link.path.startswith(prefix):
        return None
    match = _PATH.fullmatch(link.path.removeprefix(prefix))
    if match is None:
        return None
    return ItemKind(match.group(1).removesuffix("s")), match.group(2)

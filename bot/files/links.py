"""Signed download links: an attachment id and an expiry, sealed with HMAC-SHA256, so the link
works without a session until it expires, and any change to it is refused."""

import contextlib
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from yarl import URL

from bot.clock import Clock
from bot.errors import Forbidden
from bot.ids import is_id
from bot.settings import Settings

DOWNLOAD_PATH = "/files/download/{id}"
INVALID_LINK = "The download link is invalid or has expired."
_KEY_FILE = "download_signing_key"


@dataclass(frozen=True)
class DownloadLinks:
    key: bytes
    clock: Clock
    lifetime: timedelta
    base_url: str

    def url(self, attachment_id: str) -> str:
        """A link to the attachment's bytes, valid for `lifetime` from now."""
        expires = int((self.clock.now() + self.lifetime).timestamp())
        path = DOWNLOAD_PATH.format(id=attachment_id)
        query = {"expires": str(expires), "signature": self._signature(attachment_id, expires)}
        return str(URL(self.base_url + path).with_query(query))

    def check(self, attachment_id: str, expires: str, signature: str) -> None:
        """Refuse (403) a link that was altered or has expired."""
        if not (is_id(attachment_id) and expires.isdigit() and len(expires) <= 12):
            raise Forbidden(INVALID_LINK)
        expected = self._signature(attachment_id, int(expires))
        if not hmac.compare_digest(expected, signature):
            raise Forbidden(INVALID_LINK)
        if int(expires) <= self.clock.now().timestamp():
            raise Forbidden(INVALID_LINK)

    def _signature(self, attachment_id: str, expires: int) -> str:
        message = f"{attachment_id}:{expires}".encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()


def download_links(settings: Settings, clock: Clock) -> DownloadLinks:
    """Links signed with DOWNLOAD_SIGNING_KEY, else a key generated once into DATA_DIR (so links
    survive a restart; several processes on one machine share it)."""
    lifetime = timedelta(seconds=settings.download_link_seconds)
    if settings.download_signing_key is not None:
        key = settings.download_signing_key.get_secret_value().encode()
    else:
        key = _kept_key(settings.data_dir / _KEY_FILE)
    return DownloadLinks(key, clock, lifetime, settings.public_url)


def _kept_key(path: Path) -> bytes:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        made = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
        made.write_text(secrets.token_urlsafe(48))
        made.chmod(0o600)
        # Linked whole, and only if absent: processes starting together all keep the first key.
        with contextlib.suppress(FileExistsError):
            os.link(made, path)
        made.unlink()
    return path.read_text().strip().encode()

"""Signed download links: an attachment id and an expiry, sealed with HMAC-SHA256, so the link
works without a session until it expires, and any change to it is refused."""

import hashlib
import hmac
import re
from dataclasses import dataclass
from datetime import timedelta

from multidict import MultiMapping
from yarl import URL

from bot.clock import Clock
from bot.errors import Forbidden
from bot.ids import is_id
from bot.settings import Settings

DOWNLOAD_PATH = "/files/download/{id}"
INVALID_LINK = "The download link is invalid or has expired."
# Derived keys differ by purpose: a download link's key opens nothing else SECRET_KEY guards.
_KEY_PURPOSE = b"tracker download links"
# The link's query exactly as `url` writes it: each parameter once, nothing else; the expiry in
# canonical ASCII digits, so no other spelling of the same number passes the seal.
_PARAMETERS = ("expires", "signature")
_EXPIRES = re.compile(r"[1-9][0-9]{0,11}", re.ASCII)


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

    def check(self, attachment_id: str, query: MultiMapping[str]) -> None:
        """Refuse (403) a link that was altered in any part, or has expired; `query` is the
        request's multi-valued query, so a repeated parameter is seen."""
        values = list(query.items())
        if sorted(name for name, _ in values) != sorted(_PARAMETERS):
            raise Forbidden(INVALID_LINK)
        given = dict(values)
        expires, signature = given["expires"], given["signature"]
        if not (is_id(attachment_id) and _EXPIRES.fullmatch(expires)):
            raise Forbidden(INVALID_LINK)
        expected = self._signature(attachment_id, int(expires)).encode()
        # Bytes, so a signature that is not ASCII is one more mismatch, not an error.
        if not hmac.compare_digest(expected, signature.encode("utf-8", "surrogatepass")):
            raise Forbidden(INVALID_LINK)
        if int(expires) <= self.clock.now().timestamp():
            raise Forbidden(INVALID_LINK)

    def _signature(self, attachment_id: str, expires: int) -> str:
        message = f"{attachment_id}:{expires}".encode()
        return hmac.new(self.key, message, hashlib.sha256).hexdigest()


def download_links(settings: Settings, clock: Clock) -> DownloadLinks:
    """Links signed with DOWNLOAD_SIGNING_KEY, else with a key derived from SECRET_KEY (which
    every process of one deployment shares, generated into DATA_DIR on a local start)."""
    lifetime = timedelta(seconds=settings.download_link_seconds)
    if settings.download_signing_key is not None:
        key = settings.download_signing_key.get_secret_value().encode()
    else:
        key = hmac.new(settings.secret().encode(), _KEY_PURPOSE, hashlib.sha256).digest()
    return DownloadLinks(key, clock, lifetime, settings.public_url)

"""The headers of a webhook request: the definition's own, then the Standard Webhooks
signature headers and `X-Svc-Event`, which no header of the definition can replace."""

from collections.abc import Iterable, Sequence
from datetime import datetime
from math import floor

from multidict import CIMultiDict
from standardwebhooks import Webhook

from bot.events.definitions.checks import RESERVED_HEADERS

ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
EVENT_HEADER = "X-Svc-Event"
OWN_HEADERS = frozenset(
    h.lower() for h in (ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER, EVENT_HEADER)
)
USER_AGENT = "teams-tracker-webhooks/1"


def signature(secrets: Sequence[str], *, webhook_id: str, at: datetime, body: str) -> str:
    """`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated (two while a
    rotated-out secret still signs)."""
    return " ".join(Webhook(secret).sign(webhook_id, at, body) for secret in secrets)


def headers(
    defined: Iterable[dict[str, str]],
    *,
    secrets: Sequence[str],
    webhook_id: str,
    trigger: str,
    at: datetime,
    body: str,
) -> CIMultiDict[str]:
    """The request's headers; a JSON-looking body is sent as JSON unless the definition says."""
    out: CIMultiDict[str] = CIMultiDict()
    for header in defined:
        # Refused on save; a rule stored before that rule existed is held to it here.
        if header["name"].lower() not in RESERVED_HEADERS:
            out.add(header["name"], header["value"])
    if "Content-Type" not in out and body:
        json_like = body.lstrip()[:1] in ("{", "[")
        out["Content-Type"] = "application/json" if json_like else "text/plain; charset=utf-8"
    out.setdefault("User-Agent", USER_AGENT)
    out[ID_HEADER] = webhook_id
    out[TIMESTAMP_HEADER] = str(floor(at.timestamp()))
    out[SIGNATURE_HEADER] = signature(secrets, webhook_id=webhook_id, at=at, body=body)
    out[EVENT_HEADER] = trigger
    return out

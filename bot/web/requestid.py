"""A request id on every response and every log line of that request."""

import logging
import re
import uuid
from contextvars import ContextVar

HEADER = "x-request-id"
# A client's id is kept only if it is short and plain, so it cannot forge log lines.
_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

current_request_id: ContextVar[str] = ContextVar("request_id", default="-")


def choose_request_id(sent: str | None) -> str:
    if sent and _ACCEPTABLE.match(sent):
        return sent
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record, for the log format."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True

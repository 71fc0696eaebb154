"""A request id on every response and every log line of that request."""

import itertools
import logging
import re
import secrets
from contextvars import ContextVar

HEADER = "x-request-id"
# A client's id is kept only if it is short and plain, so it cannot forge log lines.
_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")

current_request_id: ContextVar[str] = ContextVar("request_id", default="-")
# Our own ids: 80 random bits per process, then a counter (32 hex digits in all). Unique without
# reading the system's random source for every request.
_PROCESS = secrets.token_hex(10)
_NUMBERS = itertools.count()


def choose_request_id(sent: str | None) -> str:
    if sent and _ACCEPTABLE.match(sent):
        return sent
    return f"{_PROCESS}{next(_NUMBERS) % 16**12:012x}"


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record, for the log format."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True

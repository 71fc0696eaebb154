"""Log lines: who and what each line is about (the request or job, the user, the channel) added
to every record, written as readable text or as one JSON object per line (`LOG_FORMAT`).

A request or job opens a `Scope`; whatever learns the user or channel later (the route frame,
the bot's turn) notes them on it, so every line logged meanwhile, the access line included,
carries them. Structured values go in `extra={"fields": {...}}`: the JSON format writes them as
keys of their own, the text format leaves them to the message, which says the same in words.
"""

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson

NO_ID = "-"


@dataclass(slots=True)
class Scope:
    """What one request or job is about; filled in as it becomes known."""

    request_id: str
    user_id: str | None = None
    channel_id: str | None = None


_scope: ContextVar[Scope | None] = ContextVar("log_scope", default=None)
_OUTSIDE = Scope(NO_ID)  # what lines logged outside any request or job carry


@contextmanager
def scoped(scope: Scope) -> Iterator[Scope]:
    """Every line logged in the block (and in tasks it starts) carries `scope`."""
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


def note(*, user_id: str | None, channel_id: str | None) -> None:
    """Who acts and where, once known: on every later line of the request or job."""
    scope = _scope.get()
    if scope is not None:
        scope.user_id, scope.channel_id = user_id, channel_id


def request_id() -> str:
    """The id of the request or job this code runs for ("-" outside any)."""
    return (_scope.get() or _OUTSIDE).request_id


class ScopeFilter(logging.Filter):
    """Adds the scope's ids to every record, for the formats."""

    def filter(self, record: logging.LogRecord) -> bool:
        scope = _scope.get() or _OUTSIDE
        record.request_id = scope.request_id
        record.user_id = scope.user_id
        record.channel_id = scope.channel_id
        return True


class TextFormatter(logging.Formatter):
    """`time level logger request_id=… [user_id=… channel_id=…] message`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(ids)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        ids = f"request_id={getattr(record, 'request_id', NO_ID)}"
        user_id, channel_id = getattr(record, "user_id", None), getattr(record, "channel_id", None)
        if user_id or channel_id:
            ids += f" user_id={user_id or NO_ID} channel_id={channel_id or NO_ID}"
        record.ids = ids
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the scope's ids, the record's
    `fields`, and a traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", NO_ID),
        }
        for key in ("user_id", "channel_id"):
            if getattr(record, key, None):
                line[key] = getattr(record, key)
        fields = getattr(record, "fields", None)
        if fields:
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        return orjson.dumps(line, default=str).decode()


def handler(log_format: str, stream: Any = None) -> logging.Handler:
    """A handler writing `stream` (stderr) in the format LOG_FORMAT names, ids added."""
    written = logging.StreamHandler(stream or sys.stderr)
    written.addFilter(ScopeFilter())
    written.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    return written


def configure(level: str, log_format: str) -> None:
    """The process's logging, as `python app.py` runs it."""
    # What neither format writes, not looked up for every line: the caller's frame, the
    # thread, the process. Together they were a large share of an access line's cost.
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    logging._srcfile = None  # the documented switch that skips finding the caller
    logging.basicConfig(level=level, handlers=[handler(log_format)], force=True)

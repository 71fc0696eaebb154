"""Every log line the process writes while a block runs, as `python app.py` writes them."""

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bot import logs


@dataclass
class Captured:
    json: io.StringIO = field(default_factory=io.StringIO)
    text: io.StringIO = field(default_factory=io.StringIO)

    def lines(self) -> list[dict[str, Any]]:
        """The JSON lines, parsed (each must be one object)."""
        return [json.loads(line) for line in self.json.getvalue().splitlines()]

    def of(self, logger: str) -> list[dict[str, Any]]:
        return [line for line in self.lines() if line["logger"] == logger]

    def everything(self) -> str:
        """Both formats' output, to search for what must never be written."""
        return self.json.getvalue() + self.text.getvalue()


@contextmanager
def captured(level: int = logging.DEBUG) -> Iterator[Captured]:
    """Every record at `level` and above, written in both formats (LOG_FORMAT json and text)."""
    out = Captured()
    root = logging.getLogger()
    handlers = [logs.handler("json", out.json), logs.handler("text", out.text)]
    before = root.level
    root.setLevel(level)
    for handler in handlers:
        root.addHandler(handler)
    try:
        yield out
    finally:
        for handler in handlers:
            root.removeHandler(handler)
        root.setLevel(before)

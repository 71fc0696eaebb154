"""A progress bar on stderr, for a person at a terminal: drawn only when stdout and stderr are
both terminals (a script reading the JSON, or a log, gets none). A few lines, not a dependency."""

import sys
import time
from typing import TextIO

WIDTH = 30
EVERY_S = 0.1  # redrawn at most this often: drawing each row would cost more than the row


class Progress:
    def __init__(self, total_bytes: int, *, out: TextIO | None = None) -> None:
        self._out = out if out is not None else _terminal()
        self._total = max(total_bytes, 1)
        self._done = 0
        self._drawn_at = 0.0

    def advance(self, size: int) -> None:
        """`size` more bytes of the file read."""
        self._done += size
        now = time.monotonic()
        if self._out is not None and now - self._drawn_at >= EVERY_S:
            self._drawn_at = now
            self._draw()

    def close(self, records: int) -> None:
        if self._out is not None:
            self._done = self._total
            self._draw(f" {records:,} records")
            self._out.write("\n")

    def _draw(self, suffix: str = "") -> None:
        assert self._out is not None
        share = min(self._done / self._total, 1.0)
        filled = round(share * WIDTH)
        bar = "#" * filled + "-" * (WIDTH - filled)
        self._out.write(f"\r[{bar}] {share:4.0%}{suffix}")
        self._out.flush()


def _terminal() -> TextIO | None:
    return sys.stderr if sys.stdout.isatty() and sys.stderr.isatty() else None

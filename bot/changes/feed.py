"""The process's wake-ups for open change streams: a commit here (`bot.jobs.wakeups`) or in another
process (PostgreSQL's NOTIFY) wakes every stream, which then reads its own channel's changes."""

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager


class ChangeFeed:
    """Wakes the open streams; closed at shutdown, which ends them all."""

    def __init__(self) -> None:
        self._waiting: set[asyncio.Event] = set()
        self.closed = False

    def wake(self) -> None:
        """Something may have changed: every stream looks (called on the event loop)."""
        for event in self._waiting:
            event.set()

    def close(self) -> None:
        """The app is stopping: every stream ends at its next look, and no new one waits."""
        self.closed = True
        self.wake()

    @contextmanager
    def subscribed(self) -> Iterator[asyncio.Event]:
        """An event set at every wake while the block runs (the stream clears it as it looks)."""
        event = asyncio.Event()
        self._waiting.add(event)
        try:
            yield event
        finally:
            self._waiting.discard(event)

"""Each session or token may run a few list requests at once; past that it is told to retry.

Lists are the requests whose cost the caller chooses (a filter, a sort, a page size): one
script looping over heavy filters would otherwise take every database connection and thread
the others need. Writes are not capped: many parallel creates from one script are normal. The
count is per process; each process behind a load balancer allows its own share.
"""

from collections.abc import Iterator
from contextlib import contextmanager

from bot.errors import TooManyRequests

RETRY_AFTER_S = 1


class ListsInFlight:
    """How many capped requests each credential has running, at most `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._running: dict[str, int] = {}

    @contextmanager
    def slot(self, credentials: str | None) -> Iterator[None]:
        """Hold one of the credential's slots for the block, or raise `TooManyRequests`. No
        credentials: nothing to count (authentication refuses the request)."""
        if credentials is None:
            yield
            return
        running = self._running.get(credentials, 0)
        if running >= self.limit:
            raise TooManyRequests(
                f"Too many list requests at once: at most {self.limit} per session or token. "
                f"Retry after {RETRY_AFTER_S} s.",
                retry_after=RETRY_AFTER_S,
            )
        self._running[credentials] = running + 1
        try:
            yield
        finally:
            left = self._running.pop(credentials) - 1
            if left:
                self._running[credentials] = left

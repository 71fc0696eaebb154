"""Each session or token may run a few list requests at once; past that it waits, briefly, then
is told to retry.

Lists are the requests whose cost the caller chooses (a filter, a sort, a page size): one
script looping over heavy filters would otherwise take every database connection and thread
the others need. A list over the share waits up to `WAIT_S` for one of the caller's own lists to
end before it is refused: refused at once, a flooding client comes straight back, and answering
its 429s, as fast as it asks, took the event loop from everyone else. Writes are not capped:
many parallel creates from one script are normal. The count is per process; each process behind
a load balancer allows its own share.
"""

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.errors import TooManyRequests

RETRY_AFTER_S = 1
WAIT_S = 1.0


class _Share:
    """One credential's slots, and how many requests hold or wait for one."""

    __slots__ = ("slots", "users")

    def __init__(self, limit: int) -> None:
        self.slots = asyncio.Semaphore(limit)
        self.users = 0


class ListsInFlight:
    """How many capped requests each credential has running, at most `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._shares: dict[str, _Share] = {}

    @asynccontextmanager
    async def slot(self, credentials: str | None) -> AsyncIterator[None]:
        """Hold one of the credential's slots for the block, waiting up to `WAIT_S` for one, or
        raise `TooManyRequests`. No credentials: nothing to count (authentication refuses)."""
        if credentials is None:
            yield
            return
        share = self._shares.get(credentials)
        if share is None:
            share = self._shares[credentials] = _Share(self.limit)
        share.users += 1
        try:
            try:
                await asyncio.wait_for(share.slots.acquire(), WAIT_S)
            except TimeoutError:
                raise TooManyRequests(
                    f"Too many list requests at once: at most {self.limit} per session or "
                    f"token. Retry after {RETRY_AFTER_S} s.",
                    retry_after=RETRY_AFTER_S,
                ) from None
            try:
                yield
            finally:
                share.slots.release()
        finally:
            share.users -= 1
            if share.users == 0:
                del self._shares[credentials]

"""Sends per conversation spaced within Teams' published limits (per bot, per thread)."""

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable

# (sends, seconds): 7 per second, 8 per 2 s, 60 per 30 s, 1,800 per hour.
TEAMS_LIMITS = ((7, 1.0), (8, 2.0), (60, 30.0), (1800, 3600.0))


class Pacer:
    """Waits before a send until every window of the conversation has room (this process)."""

    def __init__(
        self,
        *,
        now: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        limits: tuple[tuple[int, float], ...] = TEAMS_LIMITS,
    ) -> None:
        self._now, self._sleep, self._limits = now, sleep, limits
        self._longest = max(window for _, window in limits)
        self._sent: dict[str, deque[float]] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def wait_turn(self, conversation: str) -> None:
        """Return when a send to `conversation` is within the limits; it counts as sent."""
        lock = self._locks.setdefault(conversation, asyncio.Lock())
        async with lock:
            while (delay := self._delay(conversation)) > 0:
                await self._sleep(delay)
            self._sent.setdefault(conversation, deque()).append(self._now())

    def _delay(self, conversation: str) -> float:
        now = self._now()
        sent = self._sent.get(conversation)
        if not sent:
            return 0.0
        while sent and now - sent[0] >= self._longest:
            sent.popleft()
        delay = 0.0
        for count, window in self._limits:
            if len(sent) >= count:
                # The oldest of the last `count` sends must leave the window first.
                delay = max(delay, sent[-count] + window - now)
        return delay

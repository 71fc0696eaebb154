"""Webhook sends in flight in one process: a share per receiver host and a total, so a
receiver that hangs holds its own share and nothing more.

A try waits for a slot of its receiver while that receiver answers briskly (a burst to one fast
receiver queues here, in order). Once the receiver's oldest send in flight is older than SLOW,
the receiver is stalled: a try for it gives up at once, or within LOOK_AGAIN if already waiting,
and the job is put off, freeing its worker slot for jobs bound elsewhere.
"""

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

SLOW = 1.0  # seconds
LOOK_AGAIN = 0.1  # seconds between a waiting try's looks at whether its receiver stalled
TOTAL_WAIT = 2.0  # seconds a try waits at most for a slot of the total


class Busy(Exception):
    """No slot for this receiver now."""


@dataclass
class _Host:
    slots: asyncio.Semaphore
    users: int = 0  # sending or waiting
    started: list[float] = field(default_factory=list)  # monotonic starts of sends in flight

    def stalled(self) -> bool:
        return bool(self.started) and time.monotonic() - min(self.started) > SLOW


class Caps:
    """Sends in flight in this process: at most `total`, and `per_host` to one host."""

    def __init__(self, *, total: int, per_host: int) -> None:
        self._total = asyncio.Semaphore(total)
        self._per_host = per_host
        self._hosts: dict[str, _Host] = {}

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        """Hold a slot of `host` and of the total, or raise Busy."""
        state = self._hosts.get(host)
        if state is None:
            state = self._hosts[host] = _Host(asyncio.Semaphore(self._per_host))
        state.users += 1
        try:
            await self._host_slot(state)
            try:
                if self._total.locked():  # a free slot is taken without arming a timer
                    try:
                        async with asyncio.timeout(TOTAL_WAIT):
                            await self._total.acquire()
                    except TimeoutError:
                        raise Busy() from None
                else:
                    await self._total.acquire()
                started = time.monotonic()
                state.started.append(started)
                try:
                    yield
                finally:
                    state.started.remove(started)
                    self._total.release()
            finally:
                state.slots.release()
        finally:
            state.users -= 1
            if not state.users:
                del self._hosts[host]

    @staticmethod
    async def _host_slot(state: _Host) -> None:
        if not state.slots.locked():
            await state.slots.acquire()
            return
        while True:
            if state.slots.locked() and state.stalled():
                raise Busy()
            try:
                async with asyncio.timeout(LOOK_AGAIN):
                    await state.slots.acquire()
                return
            except TimeoutError:
                continue

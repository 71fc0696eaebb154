"""Teams' published limits on what a bot sends, counted in the database so that every process
of the service shares one budget: per thread (7 per second, 8 per 2 s, 60 per 30 s, 1,800 per
hour) and per tenant (50 per second).

A send takes its turn in a short transaction holding the tenant's lock: it reads, for each
window, the send that must have left it before another may go (one indexed lookup each), and
either records itself or learns how long to wait, and waits outside any transaction. Times are
the machine's (the limits are Teams' real seconds), not the service's injected clock.
"""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import SystemClock
from bot.db.statements import Prepared
from bot.db.tables import TeamsSend
from bot.db.uow import unit_of_work
from bot.ids import new_id

# (sends, seconds) per thread (a channel's own conversation, a reply thread, a chat).
THREAD_LIMITS = ((7, 1.0), (8, 2.0), (60, 30.0), (1800, 3600.0))
TENANT_LIMITS = ((50, 1.0),)
KEPT = timedelta(hours=1)  # the longest window
PRUNE_EVERY = 500  # sends of this process between two prunings of what no window holds

_SENDS = cast(Table, TeamsSend.__table__)
_RECORD = Prepared(insert(_SENDS))
_PRUNE = Prepared(delete(_SENDS).where(_SENDS.c.sent_at < bindparam("before")))


def _nth_latest(column: str) -> Prepared:
    """The `nth` latest send of one thread (or tenant), counting from 0."""
    key = _SENDS.c[column]
    return Prepared(
        select(_SENDS.c.sent_at)
        .where(key == bindparam("key"))
        .order_by(_SENDS.c.sent_at.desc())
        .limit(1)
        .offset(bindparam("nth"))
    )


_BY_THREAD = _nth_latest("conversation_id")
_BY_TENANT = _nth_latest("tenant_id")


def wall_clock() -> datetime:
    return datetime.now(UTC)


class SendBudget:
    """Waits before a send until the thread's and the tenant's windows have room for it."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        now: Callable[[], datetime] = wall_clock,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        thread_limits: tuple[tuple[int, float], ...] = THREAD_LIMITS,
        tenant_limits: tuple[tuple[int, float], ...] = TENANT_LIMITS,
    ) -> None:
        self._sessions, self._now, self._sleep = sessions, now, sleep
        self._thread_limits, self._tenant_limits = thread_limits, tenant_limits
        self._sends = 0
        # One turn at a time per tenant in this process: a pooled connection is not spent
        # waiting for the database's lock, which only other processes then contend for.
        self._turns: dict[str, asyncio.Lock] = {}

    async def wait_turn(self, conversation: str, *, tenant: str | None) -> None:
        """Return when a send to `conversation` is within every limit; it counts as sent."""
        while (delay := await self._take(conversation, tenant)) > 0:
            await self._sleep(delay)

    async def _take(self, conversation: str, tenant: str | None) -> float:
        """Record the send and return 0, or how many seconds to wait before asking again."""
        key = f"teams sends {tenant or conversation}"
        async with self._turns.setdefault(key, asyncio.Lock()):
            return await self._take_turn(key, conversation, tenant)

    async def _take_turn(self, key: str, conversation: str, tenant: str | None) -> float:
        async with unit_of_work(self._sessions, SystemClock()) as uow:
            # One tenant's sends take their turns one at a time, in every process.
            await uow.hold(key)
            now = self._now()
            delay = 0.0
            windows = [(_BY_THREAD, conversation, limit) for limit in self._thread_limits]
            if tenant:
                windows += [(_BY_TENANT, tenant, limit) for limit in self._tenant_limits]
            for statement, key, (count, seconds) in windows:
                oldest = await uow.value(statement, {"key": key, "nth": count - 1})
                if oldest is not None:
                    # The oldest of the last `count` sends must leave the window first.
                    delay = max(delay, (oldest - now).total_seconds() + seconds)
            if delay > 0:
                return delay
            await uow.execute(
                _RECORD,
                {
                    "id": new_id(),
                    "conversation_id": conversation,
                    "tenant_id": tenant,
                    "sent_at": now,
                },
            )
            self._sends += 1
            if self._sends % PRUNE_EVERY == 0:
                await uow.execute(_PRUNE, {"before": now - KEPT})
        return 0.0

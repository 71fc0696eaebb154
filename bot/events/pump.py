"""The pending-event pump: hands each committed change to the observers that act on it.

Each pass claims a batch of unprocessed pending events in one writing transaction (rows another
process holds are skipped), gives them to every observer, which enqueues what they call for (a
webhook delivery, a card update) in that same transaction, and marks them processed. A crash
before the commit leaves them unprocessed for the next pass: nothing is lost, nothing is done
twice. Observers see events oldest first within a batch; across processes, order is not kept.
"""

import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.expressions import one_of_named
from bot.db.statements import Prepared
from bot.db.tables import PendingEvent
from bot.db.uow import UnitOfWork, unit_of_work

log = logging.getLogger(__name__)

BATCH = 200


@dataclass(frozen=True, slots=True)
class Event:
    """A committed change of one item, as its pending-event row holds it."""

    id: str
    channel_id: str
    kind: str  # task | bug
    item_id: str
    trigger: str  # ITEM_CREATED, ITEM_UPDATED, ITEM_DELETED, DUESOON, OVERDUE
    actor_id: str | None
    occurred_at: datetime
    payload: dict[str, Any]


Observer = Callable[[UnitOfWork, Sequence[Event]], Awaitable[None]]

_UNPROCESSED = Prepared(
    select(
        PendingEvent.id,
        PendingEvent.channel_id,
        PendingEvent.kind,
        PendingEvent.item_id,
        PendingEvent.trigger,
        PendingEvent.actor_id,
        PendingEvent.occurred_at,
        PendingEvent.payload,
    )
    .where(PendingEvent.processed_at.is_(None))
    .order_by(PendingEvent.occurred_at, PendingEvent.id)
    .limit(BATCH)
    # PostgreSQL: two processes' pumps take different events; SQLite has one writer anyway.
    .with_for_update(skip_locked=True)
)
_PROCESSED = Prepared(
    update(PendingEvent)
    .where(one_of_named(PendingEvent.id, "ids"))
    .values(processed_at=bindparam("now"))
)
_OLDEST = Prepared(
    select(func.min(PendingEvent.occurred_at)).where(PendingEvent.processed_at.is_(None))
)


async def oldest_unprocessed(uow: UnitOfWork) -> datetime | None:
    """When the oldest change no pass has processed yet happened (None: all processed); an
    index seek (readiness and metrics read it)."""
    return await uow.value(_OLDEST)


class EventPump:
    """Runs as a pass of the jobs worker (`Worker.add_pass`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        observers: Sequence[Observer] = (),
    ) -> None:
        self._sessions, self._clock = sessions, clock
        self._observers = list(observers)

    def observe(self, observer: Observer) -> None:
        self._observers.append(observer)

    async def run_once(self) -> int:
        """Process one batch of pending events; how many there were (a full batch: call again)."""
        started = time.perf_counter()
        async with unit_of_work(self._sessions, self._clock) as uow:
            rows = await uow.rows(_UNPROCESSED)
            if not rows:
                return 0
            events = [Event(**row) for row in rows]
            for observer in self._observers:
                await observer(uow, events)
            ids = [event.id for event in events]
            await uow.execute(_PROCESSED, {"ids": ids, "now": uow.clock.now()})
        seconds = time.perf_counter() - started
        log.info(
            "events.pump processed %d events in %.1f ms",
            len(events),
            seconds * 1000,
            extra={
                "fields": {
                    "kind": "events.pump",
                    "events": len(events),
                    "duration_ms": round(seconds * 1000, 1),
                }
            },
        )
        return len(events)

"""The pending-event pump: each committed change reaches the observers once, at once."""

import asyncio
from collections.abc import Sequence
from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FrozenClock
from bot.db import signals
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Channel, Job, PendingEvent
from bot.db.uow import UnitOfWork
from bot.events.pump import BATCH, Event, EventPump
from bot.ids import new_id
from bot.jobs import queue, wakeups
from bot.jobs.worker import Worker
from bot.keys import EVENT_PUMP
from bot.settings import Settings
from tests.factories import Factory, create_item
from tests.waiting import until, until_set


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    # The worker never polls in these tests: only a wake-up can make it look.
    return make_settings(db, JOBS_POLL_SECONDS=3600)


class Seen:
    """An observer that records the events it is given and can fail once."""

    def __init__(self, *, fail: bool = False) -> None:
        self.events: list[Event] = []
        self.arrived = asyncio.Event()
        self._fail = fail

    async def __call__(self, uow: UnitOfWork, events: Sequence[Event]) -> None:
        await queue.enqueue(uow, kind="test.seen", payload={"n": len(events)})
        if self._fail:
            self._fail = False
            raise RuntimeError("observer failed")
        self.events.extend(events)
        self.arrived.set()


async def pending(factory: Factory, count: int) -> list[str]:
    """`count` pending events of one item, written directly (as any writer could)."""
    async with factory.engine.connect() as connection:
        channel_id = await connection.scalar(select(Channel.id))
    if channel_id is None:
        await factory.team()
        channel_id = (await factory.channel()).id
    ids = [new_id() for _ in range(count)]
    async with factory.engine.begin() as connection:
        await connection.execute(
            insert(PendingEvent),
            [
                {
                    "id": event_id,
                    "channel_id": channel_id,
                    "kind": "bug",
                    "item_id": "item-1",
                    "trigger": "ITEM_UPDATED",
                    "actor_id": None,
                    "occurred_at": factory.clock.now() + timedelta(microseconds=n),
                    "payload": {"n": n},
                    "processed_at": None,
                }
                for n, event_id in enumerate(ids)
            ],
        )
    return ids


async def unprocessed(factory: Factory) -> int:
    async with factory.engine.connect() as connection:
        query = select(func.count()).where(PendingEvent.processed_at.is_(None))
        return int(await connection.scalar(query) or 0)


async def jobs(factory: Factory) -> int:
    async with factory.engine.connect() as connection:
        return int(await connection.scalar(select(func.count()).select_from(Job)) or 0)


def sessions_of(factory: Factory) -> async_sessionmaker[AsyncSession]:
    return session_factory(factory.engine)


async def test_a_created_bug_reaches_an_observer_at_once_without_a_poll(
    app, client: TestClient, factory: Factory
) -> None:
    seen = Seen()
    app[EVENT_PUMP].observe(seen)
    ada = await factory.member()

    bug = await create_item(client, ada, name="Printer on fire")

    await until_set(seen.arrived, "the event to reach the observer")  # the poll is an hour
    assert [(event.trigger, event.item_id, event.kind) for event in seen.events] == [
        ("ITEM_CREATED", bug["_id"], "bug")
    ]
    # The pass commits just after the observer returns.
    await until(lambda: _all_processed(factory), "the pass to mark the event processed", poll=0.05)


async def _all_processed(factory: Factory) -> bool:
    return await unprocessed(factory) == 0


async def test_an_observer_that_fails_leaves_the_events_for_the_next_pass_and_enqueues_nothing(
    factory: Factory, clock: FrozenClock
) -> None:
    ids = await pending(factory, 3)
    seen = Seen(fail=True)
    pump = EventPump(sessions_of(factory), clock, [seen])

    with pytest.raises(RuntimeError, match="observer failed"):
        await pump.run_once()
    assert (await unprocessed(factory), await jobs(factory)) == (3, 0)

    assert await pump.run_once() == 3
    assert await pump.run_once() == 0
    assert [event.id for event in seen.events] == ids  # oldest first, once each
    assert [event.payload for event in seen.events] == [{"n": 0}, {"n": 1}, {"n": 2}]
    assert (await unprocessed(factory), await jobs(factory)) == (0, 1)


async def test_two_pumps_at_once_hand_each_event_to_one_of_them(
    factory: Factory, clock: FrozenClock
) -> None:
    ids = await pending(factory, 2 * BATCH + 50)
    first, second = Seen(), Seen()
    engine = create_engine(str(factory.engine.url.render_as_string(hide_password=False)))
    try:
        pumps = [
            EventPump(sessions_of(factory), clock, [first]),
            EventPump(session_factory(engine), clock, [second]),
        ]

        async def drain(pump: EventPump) -> None:
            while await pump.run_once():
                await asyncio.sleep(0)

        await asyncio.gather(*(drain(pump) for pump in pumps))
    finally:
        await engine.dispose()

    handed = [event.id for event in first.events + second.events]
    assert sorted(handed) == sorted(ids)
    assert await unprocessed(factory) == 0


async def test_work_written_elsewhere_wakes_a_waiting_worker(
    factory: Factory, clock: FrozenClock
) -> None:
    """On PostgreSQL, rows written by another connection (another process) notify the
    worker; on SQLite (one process) a commit of this process rings its bell."""
    seen = Seen()
    worker = Worker(sessions_of(factory), clock)
    pump = EventPump(sessions_of(factory), clock, [seen])
    first_pass_done = asyncio.Event()

    async def pass_once() -> int:
        try:
            return await pump.run_once()
        finally:
            first_pass_done.set()

    worker.add_pass(pass_once, batch=BATCH)
    postgresql = factory.engine.dialect.name == "postgresql"
    with wakeups.listening(worker.wake):
        async with signals.listening(factory.engine, signals.WORK_TOPIC, worker.wake):
            task = asyncio.create_task(worker.run_forever(poll=3600))
            try:
                # Its first pass finds nothing: only a wake-up can run another.
                await until_set(first_pass_done, "the worker's first pass")
                if postgresql:
                    ids = await pending(factory, 1)  # no bell: plain SQL on another engine
                else:
                    ids = await pending(factory, 1)
                    wakeups.ring()  # what a service's commit of pending events does
                await until_set(seen.arrived, "the event to reach the observer")
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
    assert [event.id for event in seen.events] == ids

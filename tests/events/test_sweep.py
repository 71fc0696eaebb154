"""The due-date sweep: DUESOON and OVERDUE fire once per item and due date, on both databases,
driven by a frozen clock."""

import asyncio
from datetime import timedelta

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from sqlalchemy import select, update

from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Channel, Job, PendingEvent
from bot.events import sweep
from bot.events.sweep import DueSweep
from bot.jobs.recurring import recurring_id
from bot.keys import DUE_SWEEP, WORKER
from bot.schemas import Trigger
from bot.settings import Settings
from bot.timestamps import format_timestamp
from tests.factories import Factory, Member, create_item

HOUR = timedelta(hours=1)


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    return make_settings(db, JOBS_POLL_SECONDS=0)  # the tests run the sweep themselves


async def fired(factory: Factory) -> list[tuple[str, str, str]]:
    """(trigger, item id, due date fired for) of every due-date event, in order."""
    query = (
        select(PendingEvent.trigger, PendingEvent.item_id, PendingEvent.payload)
        .where(PendingEvent.trigger.in_([Trigger.DUESOON, Trigger.OVERDUE]))
        .order_by(PendingEvent.occurred_at, PendingEvent.trigger, PendingEvent.item_id)
    )
    async with factory.engine.connect() as connection:
        rows = (await connection.execute(query)).all()
    return [(trigger, item, payload["dueDate"]) for trigger, item, payload in rows]


async def run_sweep(app: web.Application) -> None:
    await app[DUE_SWEEP].run_once()


async def patch(client: TestClient, member: Member, item: dict, **fields: object) -> None:
    response = await client.patch(
        f"/odata/bugs({item['_id']})", json=fields, headers=member.in_channel()
    )
    assert response.status == 204, await response.text()


async def test_due_soon_then_overdue_fire_once_each(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    due = clock.now() + 30 * HOUR
    bug = await create_item(
        client, ada, name="Renew the certificate", dueDate=format_timestamp(due)
    )
    task = await create_item(client, ada, of="task", dueDate=format_timestamp(due + 2 * HOUR))

    await run_sweep(app)
    assert await fired(factory) == []  # 30 h away: not within the 24 h window

    clock.advance(7 * HOUR)  # the bug is due in 23 h, the task in 25 h
    await run_sweep(app)
    await run_sweep(app)
    assert await fired(factory) == [("DUESOON", bug["_id"], format_timestamp(due))]

    clock.advance(2 * HOUR)
    await run_sweep(app)
    clock.advance(24 * HOUR)  # both overdue now
    await run_sweep(app)
    await run_sweep(app)
    assert await fired(factory) == [
        ("DUESOON", bug["_id"], format_timestamp(due)),
        ("DUESOON", task["_id"], format_timestamp(due + 2 * HOUR)),
        *sorted(
            [
                ("OVERDUE", bug["_id"], format_timestamp(due)),
                ("OVERDUE", task["_id"], format_timestamp(due + 2 * HOUR)),
            ],
            key=lambda row: row[1],
        ),
    ]


async def test_moving_the_due_date_re_arms_both(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    first_due = clock.now() + 2 * HOUR
    bug = await create_item(client, ada, dueDate=format_timestamp(first_due))
    await run_sweep(app)  # created inside the window: due soon at once
    clock.advance(3 * HOUR)
    await run_sweep(app)
    assert [row[0] for row in await fired(factory)] == ["DUESOON", "OVERDUE"]

    second_due = clock.now() + 10 * HOUR
    await patch(client, ada, bug, dueDate=format_timestamp(second_due))
    await run_sweep(app)
    clock.advance(11 * HOUR)
    await run_sweep(app)

    assert sorted(await fired(factory)) == sorted(
        [
            ("DUESOON", bug["_id"], format_timestamp(first_due)),
            ("OVERDUE", bug["_id"], format_timestamp(first_due)),
            ("DUESOON", bug["_id"], format_timestamp(second_due)),
            ("OVERDUE", bug["_id"], format_timestamp(second_due)),
        ]
    )


async def test_items_in_a_done_status_never_fire_until_reopened(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    due = clock.now() + 5 * HOUR
    bug = await create_item(client, ada, status="Completed", dueDate=format_timestamp(due))
    await run_sweep(app)
    clock.advance(6 * HOUR)
    await run_sweep(app)
    assert await fired(factory) == []

    await patch(client, ada, bug, status="In Progress")  # reopened, already overdue
    await run_sweep(app)
    await run_sweep(app)
    assert await fired(factory) == [("OVERDUE", bug["_id"], format_timestamp(due))]


async def test_windows_missed_while_down_fire_once_after_start(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    soon = await create_item(client, ada, dueDate=format_timestamp(clock.now() + 50 * HOUR))
    late = await create_item(client, ada, dueDate=format_timestamp(clock.now() + 30 * HOUR))
    await run_sweep(app)
    assert await fired(factory) == []

    clock.advance(40 * HOUR)  # nothing ran meanwhile: late passed both lines, soon one
    await run_sweep(app)
    await run_sweep(app)

    assert sorted(await fired(factory)) == sorted(
        [
            ("DUESOON", soon["_id"], format_timestamp(clock.now() + 10 * HOUR)),
            ("OVERDUE", late["_id"], format_timestamp(clock.now() - 10 * HOUR)),
        ]
    )


async def test_a_channel_window_replaces_the_installation_default(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    async with factory.engine.begin() as connection:
        await connection.execute(update(Channel).values(due_soon_minutes=60))
    bug = await create_item(client, ada, dueDate=format_timestamp(clock.now() + 3 * HOUR))
    await run_sweep(app)
    clock.advance(HOUR + timedelta(minutes=30))
    await run_sweep(app)
    assert await fired(factory) == []  # due in 90 minutes: outside the channel's hour
    clock.advance(HOUR)
    await run_sweep(app)
    assert [row[:2] for row in await fired(factory)] == [("DUESOON", bug["_id"])]


async def test_deleted_items_never_fire(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, dueDate=format_timestamp(clock.now() + 30 * HOUR))
    response = await client.delete(f"/odata/bugs({bug['_id']})", headers=ada.in_channel())
    assert response.status == 204
    clock.advance(40 * HOUR)
    await run_sweep(app)
    assert await fired(factory) == []


async def test_two_sweeps_at_once_fire_each_event_once(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bugs = [
        await create_item(client, ada, dueDate=format_timestamp(clock.now() + (30 + n) * HOUR))
        for n in range(5)
    ]
    clock.advance(40 * HOUR)
    # A second sweep on a connection pool of its own, as another process would run it.
    engine = create_engine(factory.engine.url.render_as_string(hide_password=False))
    try:
        other = DueSweep(session_factory(engine), clock, default_window=24 * HOUR)
        await asyncio.gather(run_sweep(app), other.run_once(), run_sweep(app))
    finally:
        await engine.dispose()
    assert sorted(await fired(factory)) == sorted(
        ("OVERDUE", bug["_id"], bug["dueDate"]) for bug in bugs
    )


async def test_the_worker_runs_the_sweep_as_a_recurring_job(
    app: web.Application, client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    bug = await create_item(client, ada, dueDate=format_timestamp(clock.now() + 30 * HOUR))
    clock.advance(31 * HOUR)

    assert await app[WORKER].run_once() == 2  # the sweep, and the delivery log's hourly pruning
    assert await app[WORKER].run_once() == 0  # next run: a minute on
    clock.advance(timedelta(minutes=1))
    assert await app[WORKER].run_once() == 1

    assert await fired(factory) == [("OVERDUE", bug["_id"], bug["dueDate"])]
    async with factory.engine.connect() as connection:
        job = (
            await connection.execute(select(Job).where(Job.id == recurring_id(sweep.KIND.name)))
        ).one()
    assert (job.state, job.attempts, job.last_error) == ("queued", 0, None)
    assert job.run_at == clock.now() + timedelta(minutes=1)

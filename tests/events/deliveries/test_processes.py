"""Deliveries across processes and failures: a hanging receiver holds back no other, two app
processes on one database send each delivery once, so does one with fewer slots than tries,
and a process that dies mid-send leaves the delivery to another, which sends it again with the
same webhook-id."""

from collections.abc import Callable
from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from bot.jobs import queue
from bot.jobs.worker import LEASE
from bot.keys import WORKER
from bot.settings import Settings
from tests.events.deliveries.conftest import ALLOWED
from tests.events.deliveries.factory import attempts, delivery, rule_to, stored
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member
from tests.waiting import until

MakeSettings = Callable[..., Settings]


async def running_app(
    db: str,
    make_settings: MakeSettings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    **more: object,
) -> TestClient:
    """An app whose worker runs by itself, as in a served process."""
    settings = make_settings(db, JOBS_POLL_SECONDS=0.05, WEBHOOK_ALLOWED_HOSTS=ALLOWED, **more)
    return await aiohttp_client(create_app(settings, clock=clock))


async def states(factory: Factory, ids: list[str]) -> list[str]:
    return [(await stored(factory, delivery_id)).state for delivery_id in ids]


async def until_states(
    factory: Factory, ids: list[str], state: str, clock: FrozenClock | None = None
) -> None:
    """Wait for the deliveries to reach `state`; with `clock`, time passes meanwhile (a try
    put off while its receiver was busy comes due again)."""

    async def reached() -> bool:
        if await states(factory, ids) == [state] * len(ids):
            return True
        if clock is not None:
            clock.advance(timedelta(milliseconds=200))
        return False

    await until(reached, f"the deliveries to be {state}", poll=0.05)


async def test_a_hanging_receiver_does_not_delay_deliveries_to_another(
    db: str,
    make_settings: MakeSettings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    factory: Factory,
    receiver: Receiver,
    ada: Member,
) -> None:
    client = await running_app(
        db, make_settings, clock, aiohttp_client, WEBHOOK_PER_HOST=2, WEBHOOK_CONCURRENCY=4
    )
    port = receiver.base_url.rsplit(":", 1)[1]
    # Two host names of one server: to the service, two receivers.
    hanging = await rule_to(client, ada, f"http://localhost:{port}/hang")
    healthy = await rule_to(client, ada, receiver.url("/ok"))
    stuck = [(await delivery(factory, hanging["_id"])).id for _ in range(6)]
    await receiver.until(2)
    assert receiver.hanging == 2  # its host's share of slots, all held

    fine = [(await delivery(factory, healthy["_id"])).id for _ in range(3)]
    await until_states(factory, fine, "succeeded")
    assert receiver.hanging == 2 and len(receiver.to("/hang")) == 2

    receiver.release.set()
    clock.advance(timedelta(seconds=5))  # those put off are due again
    client.app[WORKER].wake()
    await until_states(factory, stuck, "succeeded")
    assert len(receiver.to("/hang")) == 6


async def test_two_processes_on_one_database_send_each_delivery_once(
    db: str,
    make_settings: MakeSettings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    factory: Factory,
    receiver: Receiver,
    ada: Member,
) -> None:
    first = await running_app(db, make_settings, clock, aiohttp_client)
    second = await running_app(db, make_settings, clock, aiohttp_client)
    rule = await rule_to(first, ada, receiver.url("/ok"))

    made = [await delivery(factory, rule["_id"]) for _ in range(40)]
    await until_states(factory, [row.id for row in made], "succeeded", clock)
    # Both processes stop, finishing what they were sending: a second send, had either
    # claimed a delivery the other sent, has reached the receiver by then.
    await first.close()
    await second.close()

    assert sorted(r.webhook_id for r in receiver.requests) == sorted(r.webhook_id for r in made)
    for row in made:
        assert [t.outcome for t in await attempts(factory, row.id)] == ["succeeded"]


async def test_a_burst_larger_than_the_workers_slots_is_sent_each_delivery_once(
    db: str,
    make_settings: MakeSettings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    factory: Factory,
    receiver: Receiver,
    ada: Member,
) -> None:
    # Two slots for thirty tries: the slots change hands with the tries' records, again and
    # again, and not one try is lost or made twice.
    app = await running_app(db, make_settings, clock, aiohttp_client, JOBS_CONCURRENCY=2)
    rule = await rule_to(app, ada, receiver.url("/ok"))

    made = [await delivery(factory, rule["_id"]) for _ in range(30)]
    await until_states(factory, [row.id for row in made], "succeeded", clock)
    await app.close()

    assert sorted(r.webhook_id for r in receiver.requests) == sorted(r.webhook_id for r in made)
    for row in made:
        assert [t.outcome for t in await attempts(factory, row.id)] == ["succeeded"]


async def test_a_process_that_dies_mid_send_leaves_the_delivery_to_another(
    db: str,
    make_settings: MakeSettings,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    factory: Factory,
    receiver: Receiver,
    ada: Member,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doomed = await running_app(db, make_settings, clock, aiohttp_client, SHUTDOWN_SECONDS=0)
    rule = await rule_to(doomed, ada, receiver.url("/hang-once"))
    sent = await delivery(factory, rule["_id"])
    await receiver.until(1)  # sent; the answer never comes back to it

    async def nothing_given_back(*_args: object, **_kwargs: object) -> None:
        """Killed (kill -9), a process gives nothing back: its lease has to run out."""

    monkeypatch.setattr(queue, "release", nothing_given_back)
    await doomed.close()  # the process is gone before it recorded anything
    monkeypatch.undo()
    receiver.release.set()
    assert (await stored(factory, sent.id)).attempts == 0

    settings = make_settings(db, JOBS_POLL_SECONDS=0, WEBHOOK_ALLOWED_HOSTS=ALLOWED)
    survivor = await aiohttp_client(create_app(settings, clock=clock))
    worker = survivor.app[WORKER]
    await worker.run_once()
    assert len(receiver.requests) == 1  # the dead process's lease still holds
    clock.advance(LEASE)
    await worker.run_once()

    assert [r.webhook_id for r in receiver.requests] == [sent.webhook_id] * 2
    assert receiver.requests[1].signed_by(rule["secret"])
    assert [t.outcome for t in await attempts(factory, sent.id)] == ["succeeded"]

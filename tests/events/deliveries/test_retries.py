"""When a try fails: retried on the Standard Webhooks schedule for what may pass (network
errors, timeouts, 408, 429, 5xx), ended at once for what will not, stopped with its rule."""

import socket
from collections.abc import Callable
from datetime import timedelta

from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from bot.events.deliveries.policy import JITTER, SCHEDULE
from bot.keys import WORKER
from bot.settings import Settings
from tests.events.deliveries.conftest import ALLOWED
from tests.events.deliveries.factory import attempts, delivery, queued_tries, rule_to, stored
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member


async def test_a_failing_receiver_is_tried_on_the_schedule_then_the_delivery_fails(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/fail"))
    sent = await delivery(factory, rule["_id"])
    worker = client.app[WORKER]

    await worker.run_once()  # the first try, at once
    for wait in SCHEDULE[1:]:
        [job] = await queued_tries(factory)
        assert wait <= job.run_at - clock.now() <= wait * (1 + JITTER)
        clock.advance(job.run_at - clock.now() - timedelta(seconds=1))
        await worker.run_once()  # not yet due
        clock.advance(timedelta(seconds=1))
        await worker.run_once()

    assert await queued_tries(factory) == []
    tries = await attempts(factory, sent.id)
    assert [t.outcome for t in tries] == ["retrying"] * 9 + ["failed"]
    assert {(t.response_code, t.error) for t in tries} == {
        (500, "HTTP 500 Internal Server Error: receiver broke")
    }
    assert (await stored(factory, sent.id)).state == "failed"
    assert len(receiver.requests) == 10
    assert {r.webhook_id for r in receiver.requests} == {sent.webhook_id}
    assert all(r.signed_by(rule["secret"]) for r in receiver.requests)


async def test_a_throttled_try_waits_for_retry_after_when_it_is_longer(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/throttle"))
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [job] = await queued_tries(factory)
    assert job.run_at - clock.now() == timedelta(seconds=120)  # not the schedule's 5 s
    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code) == ("retrying", 429)


async def test_a_receiver_that_cannot_be_reached_is_tried_again(
    client: TestClient, factory: Factory, ada: Member
) -> None:
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    rule = await rule_to(client, ada, f"http://127.0.0.1:{port}/hook")
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code) == ("retrying", None)
    assert "ClientConnectorError" in (attempt.error or "")
    assert len(await queued_tries(factory)) == 1


async def test_a_receiver_that_does_not_answer_in_time_is_tried_again(
    factory: Factory,
    receiver: Receiver,
    ada: Member,
    make_settings: Callable[..., Settings],
    aiohttp_client: AiohttpClient,
    clock: FrozenClock,
) -> None:
    settings = make_settings(
        factory.engine.url.render_as_string(hide_password=False),
        JOBS_POLL_SECONDS=0,
        WEBHOOK_ALLOWED_HOSTS=ALLOWED,
        WEBHOOK_TIMEOUT_SECONDS=0.3,
    )
    client = await aiohttp_client(create_app(settings, clock=clock))
    rule = await rule_to(client, ada, receiver.url("/hang"))
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.error) == ("retrying", "No answer within 0.3 s")


async def test_a_rule_switched_off_before_a_retry_stops_its_delivery(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/fail"))
    sent = await delivery(factory, rule["_id"])
    worker = client.app[WORKER]
    await worker.run_once()
    response = await client.patch(
        f"/odata/eventDefinitions('{rule['_id']}')",
        json={"enable": False},
        headers=ada.in_channel(),
    )
    assert response.status == 204

    clock.advance(timedelta(minutes=1))
    await worker.run_once()

    assert len(receiver.requests) == 1
    assert [t.outcome for t in await attempts(factory, sent.id)] == ["retrying", "stopped"]
    assert (await stored(factory, sent.id)).state == "failed"
    assert await queued_tries(factory) == []


async def test_a_rule_deleted_before_a_retry_sends_nothing_more(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/fail"))
    await delivery(factory, rule["_id"])
    worker = client.app[WORKER]
    await worker.run_once()
    response = await client.delete(
        f"/odata/eventDefinitions('{rule['_id']}')", headers=ada.in_channel()
    )
    assert response.status == 204

    clock.advance(timedelta(minutes=1))
    await worker.run_once()

    assert len(receiver.requests) == 1
    assert await queued_tries(factory) == []

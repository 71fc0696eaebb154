"""One try of a delivery: signed the Standard Webhooks way, sent where the rule says and only
there, its outcome logged."""

from collections.abc import Callable
from datetime import timedelta

from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient

from bot.app import create_app
from bot.clock import FrozenClock
from bot.events.deliveries.deliver_job import DELIVER
from bot.jobs.queue import ClaimedJob
from bot.keys import DELIVERER, WORKER
from bot.settings import Settings
from tests.events.deliveries.factory import (
    BODY,
    attempts,
    delivery,
    queued_tries,
    rule_to,
    stored,
)
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member


async def test_a_delivery_arrives_signed_with_its_webhook_id_trigger_and_the_rules_headers(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [received] = receiver.requests
    received.verify(rule["secret"])
    assert (received.method, received.body) == ("POST", BODY)
    assert received.webhook_id == sent.webhook_id
    assert received.headers["X-Svc-Event"] == "ITEM_CREATED"
    assert received.headers["X-Team"] == "platform"
    assert received.headers["Content-Type"] == "application/json"
    assert len(received.headers["webhook-signature"].split(" ")) == 1
    row = await stored(factory, sent.id)
    assert (row.state, row.attempts, row.finished_at) == ("succeeded", 1, row.last_attempt_at)
    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code, attempt.error) == ("succeeded", 200, None)
    assert attempt.latency_ms is not None and attempt.latency_ms >= 0
    assert await queued_tries(factory) == []


async def test_headers_in_a_request_cannot_replace_the_signature_headers(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    """Refused when a rule is saved; a request stored before that rule was checked is held to
    it at send."""
    forged = [
        {"name": "Webhook-Id", "value": "msg_forged"},
        {"name": "webhook-signature", "value": "v1,Zm9yZ2Vk"},
        {"name": "WEBHOOK-TIMESTAMP", "value": "1"},
        {"name": "x-svc-event", "value": "NOTHING"},
        {"name": "Content-Type", "value": "application/vnd.custom+json"},
    ]
    action = {"url": receiver.url("/ok"), "method": "PUT"}
    rule = await rule_to(client, ada, receiver.url("/ok"), action=action)
    sent = await delivery(factory, rule["_id"], headers=forged)

    await client.app[WORKER].run_once()

    [received] = receiver.requests
    received.verify(rule["secret"])
    assert received.method == "PUT"
    assert received.webhook_id == sent.webhook_id
    assert received.headers.getall("webhook-id") == [sent.webhook_id]
    assert received.headers.getall("X-Svc-Event") == ["ITEM_CREATED"]
    assert received.headers["Content-Type"] == "application/vnd.custom+json"  # theirs to say


async def test_while_a_rotated_out_secret_still_signs_either_secret_verifies(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member, clock: FrozenClock
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))
    rotated = await client.post(f"/api/events/{rule['_id']}/secret", headers=ada.in_channel())
    new_secret = (await rotated.json())["secret"]
    await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [received] = receiver.requests
    assert len(received.headers["webhook-signature"].split(" ")) == 2
    received.verify(rule["secret"])
    received.verify(new_secret)

    clock.advance(timedelta(hours=24))  # the overlap is over: the new secret alone signs
    await delivery(factory, rule["_id"])
    await client.app[WORKER].run_once()
    later = receiver.requests[1]
    assert len(later.headers["webhook-signature"].split(" ")) == 1
    assert later.signed_by(new_secret) and not later.signed_by(rule["secret"])


async def test_a_redirect_is_not_followed_and_fails_at_once(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/redirect"))
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    assert [request.path for request in receiver.requests] == ["/redirect"]
    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code) == ("failed", 302)
    assert "redirects are not followed" in (attempt.error or "")
    assert (await stored(factory, sent.id)).state == "failed"
    assert await queued_tries(factory) == []


async def test_a_client_error_fails_at_once_with_what_the_receiver_said(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    rule = await rule_to(client, ada, receiver.url("/refuse"))
    sent = await delivery(factory, rule["_id"])

    await client.app[WORKER].run_once()

    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code) == ("failed", 400)
    assert attempt.error == "HTTP 400 Bad Request: bad payload"
    assert rule["secret"] not in attempt.error
    assert await queued_tries(factory) == []


async def test_a_delivery_tried_twice_by_one_job_is_sent_and_recorded_once(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    """A worker that dies after recording but before settling its job: the job runs again."""
    rule = await rule_to(client, ada, receiver.url("/ok"))
    sent = await delivery(factory, rule["_id"])
    [job] = await queued_tries(factory)
    worker = client.app[WORKER]

    await worker.run_once()
    payload = DELIVER.read(job.payload)
    rerun = ClaimedJob(job.id, job.kind, payload, attempt=2, max_attempts=job.max_attempts)
    await client.app[DELIVERER].handle(rerun)

    assert len(receiver.requests) == 1
    assert [a.outcome for a in await attempts(factory, sent.id)] == ["succeeded"]


async def test_the_guard_refuses_at_send_once_the_allow_list_no_longer_lets_the_host_through(
    client: TestClient,
    factory: Factory,
    receiver: Receiver,
    ada: Member,
    db: str,
    make_settings: Callable[..., Settings],
    aiohttp_client: AiohttpClient,
    clock: FrozenClock,
) -> None:
    rule = await rule_to(client, ada, receiver.url("/ok"))  # saved while loopback was allowed
    sent = await delivery(factory, rule["_id"])
    restarted = await aiohttp_client(
        create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock)  # the list emptied
    )

    await restarted.app[WORKER].run_once()

    assert receiver.requests == []
    [attempt] = await attempts(factory, sent.id)
    assert (attempt.outcome, attempt.response_code) == ("failed", None)
    assert attempt.error == (
        "Refused at send: action.url: 127.0.0.1 is loopback, not a global unicast address"
    )
    assert await queued_tries(factory) == []


async def test_a_request_that_cannot_be_made_fails_its_delivery_once_with_the_reason(
    client: TestClient, factory: Factory, receiver: Receiver, ada: Member
) -> None:
    """A rule saved before header values were checked: its control character is refused by
    the HTTP client before anything is sent, which no retry can change."""
    rule = await rule_to(client, ada, receiver.url("/ok"))
    sent = await delivery(factory, rule["_id"], headers=[{"name": "X-A", "value": "a\x0bb"}])

    await client.app[WORKER].run_once()
    await client.app[WORKER].run_once()

    assert receiver.requests == []
    row = await stored(factory, sent.id)
    assert (row.state, row.attempts) == ("failed", 1)
    [attempt] = await attempts(factory, sent.id)
    assert attempt.outcome == "failed"
    assert attempt.error is not None and "cannot be sent" in attempt.error
    assert await queued_tries(factory) == []

"""Job kinds across an upgrade: rows the previous code stored run, and a row no kind can read
ends with the reason instead of being retried for days."""

from datetime import timedelta

from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Job
from bot.jobs import queue
from bot.keys import WORKER
from tests.factories import Factory

ACTIVITY = {"type": "message", "text": "Assigned to you"}
THREAD = "19:general@thread.tacv2;messageid=1700000000123"
# Each kind's payload exactly as the code before typed kinds stored it.
OLD_PAYLOADS = {
    "teams.new_thread": {"channelId": "19:general@thread.tacv2", "activity": ACTIVITY},
    "teams.reply": {"conversationId": THREAD, "activity": ACTIVITY},
    "teams.update": {"conversationId": THREAD, "activityId": "1700000000456", "activity": ACTIVITY},
    "discussions.refresh": {"itemId": "0123456789abcdef01234567"},
    "notifications.digest": {"channelId": "0123456789abcdef01234567"},
    "events.deliver": {"deliveryId": "0123456789abcdef01234567", "attempt": 2, "seriesStart": 1},
    "events.due_sweep": {"sweptUntil": "2024-05-01T09:30:00.000Z"},
    "events.prune_deliveries": {},
}


async def test_every_kind_the_app_runs_reads_the_payload_the_previous_code_stored(
    client: TestClient,
) -> None:
    kinds = {kind.name: kind for kind in client.app[WORKER].kinds}

    assert kinds.keys() == OLD_PAYLOADS.keys()
    for name, old in OLD_PAYLOADS.items():
        payload = kinds[name].read(old)
        assert kinds[name].stored(payload) == old, name  # and new rows keep that shape


async def test_a_delivery_try_stored_with_its_first_payload_reads_its_counts_as_zero(
    client: TestClient,
) -> None:
    [deliver] = [kind for kind in client.app[WORKER].kinds if kind.name == "events.deliver"]

    payload = deliver.read({"deliveryId": "0123456789abcdef01234567"})

    assert (payload.attempt, payload.series_start) == (0, 0)
    assert deliver.stored(payload) == {"deliveryId": "0123456789abcdef01234567"}


async def _row(factory: Factory, job_id: str) -> Job:
    async with factory.work(write=False) as uow:
        [job] = (await uow.session.scalars(select(Job).where(Job.id == job_id))).all()
        return job


async def test_a_job_whose_payload_cannot_be_read_fails_at_once_saying_why(
    client: TestClient, factory: Factory
) -> None:
    async with factory.work() as uow:
        job_id = await queue.enqueue(uow, kind="discussions.refresh", payload={"item": "x"})

    await client.app[WORKER].run_once()

    job = await _row(factory, job_id)
    assert (job.state, job.attempts) == ("failed", 1)
    assert (
        job.last_error
        == "The discussions.refresh job's payload cannot be read: itemId: Field required"
    )


async def test_a_job_of_a_kind_no_handler_knows_is_retried_then_ends_saying_why(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    """A newer process may know the kind (a rolling upgrade): it is tried again, not dropped."""
    async with factory.work() as uow:
        job_id = await queue.enqueue(uow, kind="nobody.knows", payload={}, max_attempts=2)

    await client.app[WORKER].run_once()
    job = await _row(factory, job_id)
    assert (job.state, job.last_error) == (
        "queued",
        "RuntimeError: no handler for job kind 'nobody.knows'",
    )

    clock.advance(queue.backoff(1) + timedelta(seconds=1))
    await client.app[WORKER].run_once()
    job = await _row(factory, job_id)
    assert (job.state, job.attempts) == ("failed", 2)
    assert job.last_error == "RuntimeError: no handler for job kind 'nobody.knows'"

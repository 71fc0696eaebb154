"""Jobs on both databases: run once, back off, give up, and survive a worker that dies."""

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Job
from bot.db.uow import UnitOfWork, unit_of_work
from bot.jobs import queue
from bot.jobs.kinds import JobKind, Payload
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import NotNow, PermanentFailure, RetryLater, Worker
from tests.waiting import PATIENCE, until, until_set

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
async def sessions(db: str) -> AsyncIterator[Sessions]:
    engine = create_engine(db)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


class Numbered(Payload):
    n: int


class Named(Payload):
    name: str


TEST = JobKind("test", Numbered)
GATE = JobKind("gate", Named)


class Recorder:
    """A job handler that records each run and fails as told."""

    def __init__(self, *failures: Exception) -> None:
        self.runs: list[ClaimedJob[Numbered]] = []
        self._failures = list(failures)

    async def __call__(self, job: ClaimedJob[Numbered]) -> None:
        self.runs.append(job)
        if self._failures:
            raise self._failures.pop(0)


async def enqueue(sessions: Sessions, clock: FrozenClock, **values: object) -> str:
    async with unit_of_work(sessions, clock) as uow:
        return await queue.enqueue(uow, kind=TEST.name, payload={"n": 1}, **values)  # type: ignore[arg-type]


async def job_row(sessions: Sessions, job_id: str) -> Job:
    async with sessions() as session:
        job = await session.scalar(select(Job).where(Job.id == job_id))
        assert job is not None
        return job


def worker_with(sessions: Sessions, clock: FrozenClock, handler: Recorder) -> Worker:
    worker = Worker(sessions, clock)
    worker.register(TEST, handler)
    return worker


async def test_a_queued_job_runs_once_and_is_done(sessions: Sessions, clock: FrozenClock) -> None:
    job_id = await enqueue(sessions, clock)
    handler = Recorder()
    worker = worker_with(sessions, clock, handler)

    assert await worker.run_once() == 1
    assert await worker.run_once() == 0
    assert [run.payload for run in handler.runs] == [Numbered(n=1)]
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.finished_at, row.lease_owner) == (
        "done",
        1,
        clock.now(),
        worker.owner,
    )


async def test_a_job_is_not_run_before_its_time(sessions: Sessions, clock: FrozenClock) -> None:
    await enqueue(sessions, clock, run_at=clock.now() + timedelta(minutes=1))
    handler = Recorder()
    worker = worker_with(sessions, clock, handler)
    assert await worker.run_once() == 0
    clock.advance(timedelta(minutes=1))
    assert await worker.run_once() == 1


async def test_a_job_queued_in_a_rolled_back_transaction_never_exists(
    sessions: Sessions, clock: FrozenClock
) -> None:
    with pytest.raises(RuntimeError):
        async with unit_of_work(sessions, clock) as uow:
            await TEST.enqueue(uow, Numbered(n=1))
            raise RuntimeError("the change failed")
    assert await worker_with(sessions, clock, Recorder()).run_once() == 0


async def test_failures_are_retried_with_exponential_backoff(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock)
    handler = Recorder(ValueError("first"), ValueError("second"))
    worker = worker_with(sessions, clock, handler)

    await worker.run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.last_error) == ("queued", 1, "ValueError: first")
    assert row.run_at == clock.now() + timedelta(seconds=5)
    clock.advance(timedelta(seconds=4))
    assert await worker.run_once() == 0  # not due yet

    clock.advance(timedelta(seconds=1))
    await worker.run_once()
    row = await job_row(sessions, job_id)
    assert row.run_at == clock.now() + timedelta(seconds=10)  # doubled

    clock.advance(timedelta(seconds=10))
    await worker.run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, len(handler.runs)) == ("done", 3, 3)


def test_backoff_doubles_up_to_an_hour() -> None:
    assert [queue.backoff(n).total_seconds() for n in (1, 2, 3, 4)] == [5, 10, 20, 40]
    assert queue.backoff(30) == timedelta(hours=1)


async def test_retry_later_runs_again_after_the_delay_it_names(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock)
    handler = Recorder(RetryLater("throttled", after=timedelta(seconds=42)))
    await worker_with(sessions, clock, handler).run_once()
    row = await job_row(sessions, job_id)
    assert (row.run_at, row.last_error) == (clock.now() + timedelta(seconds=42), "throttled")


async def test_a_job_that_keeps_failing_ends_failed(sessions: Sessions, clock: FrozenClock) -> None:
    job_id = await enqueue(sessions, clock, max_attempts=2)
    handler = Recorder(ValueError("one"), ValueError("two"), ValueError("never raised"))
    worker = worker_with(sessions, clock, handler)
    await worker.run_once()
    clock.advance(timedelta(hours=1))
    await worker.run_once()
    clock.advance(timedelta(hours=1))
    assert await worker.run_once() == 0
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.last_error) == ("failed", 2, "ValueError: two")
    assert row.finished_at is not None


async def test_a_permanent_failure_is_not_retried(sessions: Sessions, clock: FrozenClock) -> None:
    job_id = await enqueue(sessions, clock)
    await worker_with(sessions, clock, Recorder(PermanentFailure("bot removed"))).run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.last_error) == ("failed", 1, "bot removed")


async def test_a_payload_its_kind_cannot_read_fails_the_job_at_once_without_running_it(
    sessions: Sessions, clock: FrozenClock
) -> None:
    async with unit_of_work(sessions, clock) as uow:
        job_id = await queue.enqueue(uow, kind=TEST.name, payload={"n": "one"})
    handler = Recorder()

    assert await worker_with(sessions, clock, handler).run_once() == 1

    assert handler.runs == []
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts) == ("failed", 1)
    assert row.last_error == (
        "The test job's payload cannot be read: "
        "n: Input should be a valid integer, unable to parse string as an integer"
    )


async def test_a_job_given_up_is_ended_by_its_kind_with_its_typed_payload_and_the_reason(
    sessions: Sessions, clock: FrozenClock
) -> None:
    ended: list[tuple[int, str]] = []

    async def gave_up(_uow: UnitOfWork, job: ClaimedJob[Numbered], error: str) -> None:
        ended.append((job.payload.n, error))

    await enqueue(sessions, clock, max_attempts=1)
    async with unit_of_work(sessions, clock) as uow:
        await queue.enqueue(uow, kind=TEST.name, payload={"n": "one"})
    worker = Worker(sessions, clock)
    worker.register(TEST, Recorder(RuntimeError("down"), RuntimeError("down")), gave_up=gave_up)

    assert await worker.run_once() == 2

    # The unreadable job stood for nothing the kind can end: it fails without the step.
    assert ended == [(1, "Gave up after 1 attempts: RuntimeError: down")]


async def test_a_kind_without_handler_is_kept_for_a_worker_that_knows_it(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock)
    await Worker(sessions, clock).run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.last_error) == ("queued", "RuntimeError: no handler for job kind 'test'")


async def test_a_kind_no_worker_knows_ends_after_its_attempts_saying_why(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock, max_attempts=1)
    await Worker(sessions, clock).run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.last_error) == ("failed", "RuntimeError: no handler for job kind 'test'")


async def test_a_worker_killed_mid_job_loses_nothing(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock)
    doomed = Worker(sessions, clock)
    async with unit_of_work(sessions, clock) as uow:
        claimed = await queue.claim(uow, owner=doomed.owner, lease=doomed.lease, limit=5)
    assert [job.id for job in claimed] == [job_id]
    # `doomed` dies here: it never finishes the job.

    handler = Recorder()
    survivor = worker_with(sessions, clock, handler)
    assert await survivor.run_once() == 0  # the lease still holds
    clock.advance(doomed.lease)
    assert await survivor.run_once() == 1
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.lease_owner) == ("done", 2, survivor.owner)

    # Had the first worker come back late, its result would not overwrite the survivor's.
    async with unit_of_work(sessions, clock) as uow:
        assert not await queue.finish(uow, job_id=job_id, owner=doomed.owner)


async def test_concurrent_workers_never_claim_the_same_job(
    sessions: Sessions, clock: FrozenClock
) -> None:
    ids = {await enqueue(sessions, clock) for _ in range(10)}
    # On PostgreSQL the first claim's transaction stays open until the second has claimed:
    # the second skips the rows it holds. SQLite's writers take turns (`bot.db.uow`), so there
    # the second claims once the first has committed.
    overlap = sessions.kw["bind"].dialect.name == "postgresql"
    first_claimed, second_claimed = asyncio.Event(), asyncio.Event()

    async def claim(owner: str, claimed: asyncio.Event, *, hold: bool = False) -> list[str]:
        async with unit_of_work(sessions, clock) as uow:
            jobs = await queue.claim(uow, owner=owner, lease=timedelta(minutes=5), limit=6)
            claimed.set()
            if hold:
                await until_set(second_claimed, "the second claim")
            return [job.id for job in jobs]

    holding = asyncio.create_task(claim("a", first_claimed, hold=overlap))
    try:
        await until_set(first_claimed, "the first claim")
        second = await claim("b", second_claimed)
        first = await holding
    finally:
        second_claimed.set()
        await asyncio.gather(holding, return_exceptions=True)
    assert not set(first) & set(second)
    assert set(first) | set(second) == ids


class Gate:
    """Handlers by payload: `slow` jobs wait until the gate opens, others end at once."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.started: list[str] = []
        self.ended: list[str] = []
        self.changed = asyncio.Event()

    async def __call__(self, job: ClaimedJob[Named]) -> None:
        name = job.payload.name
        self.started.append(name)
        self.changed.set()
        if name.startswith("slow"):
            await self.opened.wait()
        self.ended.append(name)
        self.changed.set()

    async def until(self, done: Callable[[], bool]) -> None:
        async with asyncio.timeout(PATIENCE):
            while not done():
                self.changed.clear()
                await self.changed.wait()


class Turns:
    """A pass that counts the worker's turns (each runs its passes, then claims)."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self) -> int:
        self.count += 1
        return 0

    async def another(self, worker: Worker) -> None:
        """Wake the worker and wait until it has ended a turn begun after the wake-up: the
        second pass after it, the first's turn claimed whatever it could."""
        seen = self.count
        worker.wake()
        await until(lambda: self.count > seen, "the worker's next turn")
        worker.wake()
        await until(lambda: self.count > seen + 1, "the turn after it")


async def enqueue_named(sessions: Sessions, clock: FrozenClock, name: str) -> str:
    async with unit_of_work(sessions, clock) as uow:
        return await GATE.enqueue(uow, Named(name=name))


async def test_a_job_that_hangs_does_not_hold_back_jobs_queued_after_it(
    sessions: Sessions, clock: FrozenClock
) -> None:
    gate = Gate()
    worker = Worker(sessions, clock, slots=4)
    worker.register(GATE, gate)
    await enqueue_named(sessions, clock, "slow")
    task = asyncio.create_task(worker.run_forever(poll=0.05))
    try:
        await gate.until(lambda: gate.started == ["slow"])
        await enqueue_named(sessions, clock, "quick")
        worker.wake()
        # Before, the worker waited for its whole batch (the hanging job) before claiming again.
        await gate.until(lambda: gate.ended == ["quick"])
        gate.opened.set()
        await gate.until(lambda: gate.ended == ["quick", "slow"])
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_worker_runs_at_most_its_slots_at_once(
    sessions: Sessions, clock: FrozenClock
) -> None:
    gate = Gate()
    worker = Worker(sessions, clock, slots=2)
    worker.register(GATE, gate)
    for n in range(3):
        await enqueue_named(sessions, clock, f"slow {n}")
    turns = Turns()
    worker.add_pass(turns, batch=1)
    task = asyncio.create_task(worker.run_forever(poll=0.05))
    try:
        await gate.until(lambda: len(gate.started) == 2)
        for _ in range(3):  # turns come and go, each free to claim: no third job starts
            await turns.another(worker)
        assert len(gate.started) == 2
        gate.opened.set()
        await gate.until(lambda: len(gate.ended) == 3)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_a_stopped_worker_leaves_its_job_in_flight_to_the_next_after_the_lease(
    sessions: Sessions, clock: FrozenClock
) -> None:
    gate = Gate()
    worker = Worker(sessions, clock)
    worker.register(GATE, gate)
    job_id = await enqueue_named(sessions, clock, "slow")
    task = asyncio.create_task(worker.run_forever(poll=0.05))
    await gate.until(lambda: gate.started == ["slow"])
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert gate.ended == []
    row = await job_row(sessions, job_id)
    assert (row.state, row.lease_owner) == ("queued", worker.owner)

    gate.opened.set()
    survivor = Worker(sessions, clock)
    survivor.register(GATE, gate)
    clock.advance(worker.lease)
    assert await survivor.run_once() == 1
    assert (await job_row(sessions, job_id)).state == "done"


async def test_a_job_put_off_runs_later_without_counting_an_attempt(
    sessions: Sessions, clock: FrozenClock
) -> None:
    job_id = await enqueue(sessions, clock, max_attempts=1)
    handler = Recorder(NotNow("busy", after=timedelta(seconds=3)))
    worker = worker_with(sessions, clock, handler)
    await worker.run_once()
    row = await job_row(sessions, job_id)
    assert (row.state, row.attempts, row.run_at) == (
        "queued",
        0,
        clock.now() + timedelta(seconds=3),
    )
    clock.advance(timedelta(seconds=3))
    assert await worker.run_once() == 1
    assert (await job_row(sessions, job_id)).state == "done"

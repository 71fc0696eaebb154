"""The app's worker: every job run is one log line (kind, outcome, attempt, duration) and counts
by kind and outcome; what a job logs carries its id."""

import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from prometheus_client import CollectorRegistry
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.uow import unit_of_work
from bot.jobs import queue
from bot.jobs.kinds import JobKind, NoPayload
from bot.jobs.observed_worker import ObservedWorker
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import NotNow, PermanentFailure, RetryLater
from bot.outcomes import Outcomes
from tests.logged import captured

Sessions = async_sessionmaker[AsyncSession]
inside = logging.getLogger("tests.job")


@pytest.fixture
async def sessions(db: str) -> AsyncIterator[Sessions]:
    engine = create_engine(db)
    try:
        yield session_factory(engine)
    finally:
        await engine.dispose()


async def done(job: ClaimedJob[NoPayload]) -> None:
    inside.info("working on %s", job.kind)


def raising(error: Exception):  # noqa: ANN201 - a job handler
    async def handler(_job: ClaimedJob[NoPayload]) -> None:
        raise error

    return handler


HANDLERS = {
    "probe.done": (done, "done"),
    "probe.retry": (raising(RetryLater("Teams answered 429")), "retry"),
    "probe.put_off": (raising(NotNow("busy", after=timedelta(seconds=1))), "put_off"),
    "probe.failed": (raising(PermanentFailure("refused")), "failed"),
    "probe.error": (raising(RuntimeError("boom")), "error"),
}


async def test_every_run_is_one_line_and_counted_by_kind_and_outcome(
    sessions: Sessions, clock: FrozenClock
) -> None:
    registry = CollectorRegistry()
    worker = ObservedWorker(sessions, clock, counted=Outcomes(registry))
    ids = {}
    async with unit_of_work(sessions, clock) as uow:
        for kind, (handler, _) in HANDLERS.items():
            worker.register(JobKind(kind, NoPayload), handler)
            ids[kind] = await queue.enqueue(uow, kind=kind, payload={})

    with captured(logging.INFO) as out:
        assert await worker.run_once() == len(HANDLERS)

    runs = {line["kind"]: line for line in out.of("bot.jobs.observed_worker")}
    assert {kind: line["outcome"] for kind, line in runs.items()} == {
        kind: outcome for kind, (_, outcome) in HANDLERS.items()
    }
    for kind, line in runs.items():
        assert (line["job_id"], line["request_id"], line["attempt"]) == (ids[kind], ids[kind], 1)
        assert line["duration_ms"] >= 0
    [working] = out.of("tests.job")
    assert working["request_id"] == ids["probe.done"]  # a job's own lines carry its id
    for kind, (_, outcome) in HANDLERS.items():
        labels = {"kind": kind, "outcome": outcome}
        assert registry.get_sample_value("tracker_job_runs_total", labels) == 1
        assert registry.get_sample_value("tracker_job_run_duration_seconds_count", {"kind": kind})


async def test_a_recurring_job_is_observed_too(sessions: Sessions, clock: FrozenClock) -> None:
    worker = ObservedWorker(sessions, clock, counted=None)  # metrics off: logged all the same
    every = JobKind("probe.every", NoPayload)
    worker.register_recurring(every, done, every=timedelta(minutes=1))
    async with unit_of_work(sessions, clock) as uow:
        await every.enqueue(uow, NoPayload())
    with captured(logging.INFO) as out:
        await worker.run_once()
    [line] = out.of("bot.jobs.observed_worker")
    assert (line["kind"], line["outcome"]) == ("probe.every", "done")

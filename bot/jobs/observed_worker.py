"""The app's jobs worker: every job run is one log line (kind, outcome, duration) and is counted,
and what the job records (deliveries, notifications, sends) counts for this app's metrics."""

import asyncio
import logging
import time

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import logs, outcomes
from bot.clock import Clock
from bot.db.uow import UnitOfWork
from bot.jobs.queue import StoredJob
from bot.jobs.worker import (
    SLOTS,
    JobHandler,
    NotNow,
    PermanentFailure,
    RetryLater,
    StoredGaveUp,
    Worker,
)

log = logging.getLogger(__name__)

# What a run that raised ended in; anything else is an "error" (retried with backoff).
_RAISED = (
    (NotNow, "put_off"),
    (RetryLater, "retry"),
    (PermanentFailure, "failed"),
    (asyncio.CancelledError, "cancelled"),
)


class ObservedWorker(Worker):
    """A `Worker` whose handlers are observed; `counted`: the app's outcomes (None: metrics
    off)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        counted: outcomes.Outcomes | None,
        slots: int = SLOTS,
    ) -> None:
        super().__init__(sessions, clock, slots=slots)
        self._counted = counted

    def _observed(self, kind: str, handler: JobHandler) -> JobHandler:
        async def run(job: StoredJob) -> str | None:
            started = time.perf_counter()
            outcome = "done"
            with logs.scoped(logs.Scope(job.id)), outcomes.bound(self._counted):
                try:
                    return await handler(job)
                except BaseException as exc:
                    outcome = next(
                        (name for kind, name in _RAISED if isinstance(exc, kind)), "error"
                    )
                    raise
                finally:
                    self._ran(job, outcome, time.perf_counter() - started)

        return run

    def _observed_end(self, gave_up: StoredGaveUp) -> StoredGaveUp:
        """What a given-up job ends counts for this app's metrics, as what its runs record."""

        async def end(uow: UnitOfWork, job: StoredJob, error: str) -> None:
            with logs.scoped(logs.Scope(job.id)), outcomes.bound(self._counted):
                await gave_up(uow, job, error)

        return end

    def _ran(self, job: StoredJob, outcome: str, seconds: float) -> None:
        if self._counted is not None:
            self._counted.job_runs.labels(job.kind, outcome).inc()
            self._counted.job_seconds.labels(job.kind).observe(seconds)
        fields = {
            "job_id": job.id,
            "kind": job.kind,
            "outcome": outcome,
            "attempt": job.attempt,
            "duration_ms": round(seconds * 1000, 1),
        }
        log.info(
            "job %s %s in %.1f ms (attempt %s)",
            job.kind,
            outcome,
            seconds * 1000,
            job.attempt,
            extra={"fields": fields},
        )

"""The in-process worker: claims due jobs in a short transaction, runs them outside it."""

import asyncio
import dataclasses
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from functools import partial
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.uow import UnitOfWork, unit_of_work
from bot.ids import new_id
from bot.jobs import queue
from bot.jobs.kinds import JobKind, Payload, UnreadablePayload
from bot.jobs.queue import ClaimedJob, StoredJob

log = logging.getLogger(__name__)

# Longer than any job should take: a worker that dies mid-job delays the retry by this much.
LEASE = timedelta(minutes=5)
BATCH = 20
SLOTS = 32  # jobs one worker runs at once (JOBS_CONCURRENCY)

# A handler that finished its job in its own transaction (`queue.finish`) returns SETTLED.
SETTLED = "settled"
P = TypeVar("P", bound=Payload)
# A kind's handler: the job with its payload read into the kind's model.
Handler = Callable[[ClaimedJob[P]], Awaitable[str | None]]
# What the worker runs: the job as claimed, its payload as stored.
JobHandler = Callable[[StoredJob], Awaitable[str | None]]
# What a kind does when its job is given up (its tries ran out, or retrying cannot help), in the
# transaction that marks the job failed: end what the job stood for, with the last error, so
# nothing waits for it forever.
GaveUp = Callable[[UnitOfWork, ClaimedJob[P], str], Awaitable[None]]
# What the worker runs when it gives a job up: the job as claimed, its payload as stored.
StoredGaveUp = Callable[[UnitOfWork, StoredJob, str], Awaitable[None]]
# What a kind reads for its jobs in the transaction that claims them, a value per job (put on
# the job as `read`): a claim and its reads in one transaction, instead of a read per job.
Reader = Callable[[UnitOfWork, list[ClaimedJob[P]]], Awaitable[Sequence[Any]]]
# What the worker runs at a claim: the jobs as claimed, their payloads as stored.
StoredReader = Callable[[UnitOfWork, list[StoredJob]], Awaitable[list[Any]]]
# Work that is not a job row, done at every turn before claiming jobs (the pending-event
# pump): the number of things it did, a full batch meaning "there is more".
Pass = Callable[[], Awaitable[int]]


class RetryLater(Exception):
    """Raised by a handler to run the job again after `after` (e.g. a Retry-After)."""

    def __init__(self, message: str, *, after: timedelta | None = None) -> None:
        super().__init__(message)
        self.after = after


class PermanentFailure(Exception):
    """Raised by a handler when retrying cannot help: the job is marked failed at once."""


class NotNow(Exception):
    """Raised by a handler that could not start (a resource it needs is busy): the job runs
    again after `after`, and this run does not count as an attempt."""

    def __init__(self, message: str, *, after: timedelta) -> None:
        super().__init__(message)
        self.after = after


class Worker:
    """Runs jobs by kind; several workers (processes) can share one database."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        lease: timedelta = LEASE,
        batch: int = BATCH,
        slots: int = SLOTS,
    ) -> None:
        self._sessions, self._clock = sessions, clock
        self.lease, self.batch, self.slots = lease, batch, slots
        # Unique per worker, readable in the table: host, process, and a random part.
        self.owner = f"{socket.gethostname()[:32]}:{os.getpid()}:{new_id()[-8:]}"
        self._kinds: dict[str, JobKind[Any]] = {}
        self._handlers: dict[str, JobHandler] = {}
        self._gave_up: dict[str, StoredGaveUp] = {}
        self._readers: dict[str, StoredReader] = {}
        self._every: dict[str, timedelta] = {}  # recurring kinds and their interval
        self._passes: list[tuple[Pass, int]] = []
        self._wake = asyncio.Event()
        # New work may have been written (a wake, a poll): run the passes at the next turn. A
        # finished job starts a turn that claims again only if the last claim left jobs due.
        self._passes_due = self._jobs_due = True
        # run_forever's jobs in flight, and the jobs they run.
        self._running: dict[asyncio.Task[None], StoredJob] = {}
        self._stopping = False  # shutting down: no more claims
        # run_forever is running: it keeps the jobs in flight (run_once awaits its own).
        self._forever = False
        self.last_turn_at = clock.now()  # when run_forever last began a turn (readiness)

    @property
    def kinds(self) -> list[JobKind[Any]]:
        """The kinds this worker runs."""
        return list(self._kinds.values())

    def register(
        self,
        kind: JobKind[P],
        handler: Handler[P],
        *,
        gave_up: GaveUp[P] | None = None,
        read: Reader[P] | None = None,
    ) -> None:
        """Run `kind`'s jobs with `handler`; a job whose payload the kind cannot read fails
        at once, saying why. `gave_up` ends what a job given up stood for; `read` reads what
        the jobs need in the transaction that claims them (the handler finds it as `job.read`)."""
        self._kinds[kind.name] = kind
        self._handlers[kind.name] = self._observed(kind.name, _reading(kind, handler))
        if gave_up is not None:
            self._gave_up[kind.name] = self._observed_end(_reading_end(kind, gave_up))
        if read is not None:
            self._readers[kind.name] = _reading_claimed(kind, read)

    def register_recurring(
        self, kind: JobKind[P], handler: Handler[P], *, every: timedelta
    ) -> None:
        """Run `kind`'s one row (`bot.jobs.recurring.ensure`) every `every`; a failed run is
        tried again after the usual backoff, never given up."""
        self.register(kind, handler)
        self._every[kind.name] = every

    def _observed(self, kind: str, handler: JobHandler) -> JobHandler:
        """What runs the kind's jobs: the handler itself here (a subclass observes its runs)."""
        return handler

    def _observed_end(self, gave_up: StoredGaveUp) -> StoredGaveUp:
        """What ends a kind's given-up jobs: `gave_up` itself here (a subclass observes it)."""
        return gave_up

    def add_pass(self, run: Pass, *, batch: int) -> None:
        """Run `run` at every turn, before claiming jobs (whatever it enqueues runs in that
        turn); `batch` is what it does at most in one call."""
        self._passes.append((run, batch))

    def stop_claiming(self) -> None:
        """The first step of a shutdown: the jobs in flight go on, no new one is claimed."""
        self._stopping = True
        self._wake.set()

    async def drain(self, grace: float) -> None:
        """Shut down: let the jobs in flight end within `grace` seconds, then cancel the rest
        and give their jobs back, due at once, so another process takes them without waiting
        for their leases to run out."""
        self.stop_claiming()
        if self._running:
            await asyncio.wait(list(self._running), timeout=max(grace, 0))
        left = dict(self._running)
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        if left:
            async with unit_of_work(self._sessions, self._clock) as uow:
                await queue.release(
                    uow, job_ids=[job.id for job in left.values()], owner=self.owner
                )
            log.warning("shutdown: %d jobs in flight given back for another worker", len(left))

    def wake(self) -> None:
        """Look for due jobs now instead of at the next poll (after queueing one)."""
        self._passes_due = self._jobs_due = True
        self._wake.set()

    async def run_once(self) -> int:
        """One turn: the passes, then the due jobs (up to a batch) run concurrently; the
        number of jobs run."""
        await self.run_passes()
        return await self._run_jobs()

    async def run_passes(self) -> bool:
        """Run each pass once; whether one came back full (it has more to do right away)."""
        full = False
        for run, batch in self._passes:
            full |= await run() >= batch
        return full

    async def _run_jobs(self) -> int:
        jobs = await self._claim(self.batch)
        await asyncio.gather(*(self._run(job) for job in jobs))
        return len(jobs)

    async def _claim(self, limit: int) -> list[StoredJob]:
        async with unit_of_work(self._sessions, self._clock) as uow:
            return await self._claimed(uow, limit)

    async def _claimed(self, uow: UnitOfWork, limit: int) -> list[StoredJob]:
        """Lease up to `limit` due jobs and, in the same transaction, read what their kinds
        read with a claim."""
        jobs = await queue.claim(uow, owner=self.owner, lease=self.lease, limit=limit)
        by_kind: dict[str, list[int]] = {}
        for index, job in enumerate(jobs):
            if job.kind in self._readers:
                by_kind.setdefault(job.kind, []).append(index)
        for kind, indexes in by_kind.items():
            values = await self._readers[kind](uow, [jobs[index] for index in indexes])
            for index, value in zip(indexes, values, strict=True):
                jobs[index] = dataclasses.replace(jobs[index], read=value)
        return jobs

    async def claim_for_ending(self, uow: UnitOfWork, *, ending: int) -> None:
        """Claim, in the caller's transaction, jobs for the slots that `ending` of this
        worker's jobs free once it commits (their handlers settle them in it, in a batch): the
        slots change hands in that transaction instead of in a claim of its own after it. The
        jobs start when it commits; a caller whose transaction fails calls `wake()`, so the
        worker claims them itself."""
        limit = min(ending, self.batch)
        if limit <= 0 or not self._forever or not self._jobs_due or self._stopping:
            return
        self._jobs_due = False
        jobs = await self._claimed(uow, limit)
        uow.on_commit(partial(self._start, jobs, full=len(jobs) == limit))

    def _start(self, jobs: list[StoredJob], *, full: bool) -> None:
        """Run the jobs just claimed, each in a task of its own; `full`: more may be due. A
        worker cancelled since leaves them to their leases, as its jobs in flight."""
        if not self._forever:
            return
        for job in jobs:
            task = asyncio.create_task(self._run_logged(job))
            self._running[task] = job
            task.add_done_callback(self._ended)
        self._jobs_due |= full

    async def run_forever(self, poll: float) -> None:
        """Until cancelled: keep up to `slots` jobs running, claiming more as soon as one ends
        (a slow job never holds the others back); sleep `poll` seconds or until woken when
        nothing is due. Cancelled, it cancels its jobs in flight: their leases run out and
        another worker takes them up, as after a crash."""
        self._forever = True
        try:
            while True:
                self.last_turn_at = self._clock.now()
                try:
                    more = await self._turn()
                except Exception:
                    log.exception("job worker: a turn failed; retrying after %s s", poll)
                    more = False
                if self._stopping and not self._running:
                    return
                if not more:
                    # Not wait_for: on Python 3.11 it can swallow a cancellation that arrives as
                    # the wake does (every commit rings), and the worker would outlive its app.
                    try:
                        async with asyncio.timeout(poll):
                            await self._wake.wait()
                    except TimeoutError:
                        self._passes_due = self._jobs_due = True
                    self._wake.clear()
        finally:
            self._forever = False
            running = list(self._running)
            for task in running:
                task.cancel()
            await asyncio.gather(*running, return_exceptions=True)

    async def _turn(self) -> bool:
        """Run the passes and start due jobs in the free slots; whether to turn again at once."""
        full = False
        if self._passes_due:
            self._passes_due = False
            full = await self.run_passes()
            self._passes_due |= full  # a wake during the passes stands
            self._jobs_due = True  # the passes may have queued some
        free = min(self.slots - len(self._running), self.batch)
        if free <= 0 or not self._jobs_due or self._stopping:
            return full  # a job that ends wakes the worker
        self._jobs_due = False
        jobs = await self._claim(free)
        self._start(jobs, full=len(jobs) == free)  # a full claim: more may be due
        return full or (self._jobs_due and len(self._running) < self.slots)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._running.pop(task, None)
        if self._jobs_due:
            self._wake.set()  # a free slot, and jobs left due: claim again

    async def _run_logged(self, job: StoredJob) -> None:
        try:
            await self._run(job)
        except Exception:
            # Settling failed (the database went away): the lease runs out, the job runs again.
            log.exception("job %s (%s): could not be settled", job.id, job.kind)

    async def _run(self, job: StoredJob) -> None:
        if job.kind in self._every:
            await self._run_recurring(job, self._every[job.kind])
            return
        handler = self._handlers.get(job.kind)
        after: timedelta | None = None
        try:
            if handler is None:
                # Another process's version may know it: retry rather than lose it.
                raise RuntimeError(f"no handler for job kind '{job.kind}'")
            settled = await handler(job)
        except NotNow as exc:
            log.debug("job %s (%s) put off: %s", job.id, job.kind, exc)
            await self._settle(queue.postpone, job, run_at=self._clock.now() + exc.after)
            return
        except PermanentFailure as exc:
            log.warning("job %s (%s) failed for good: %s", job.id, job.kind, exc)
            await self._give_up(job, str(exc))
            return
        except RetryLater as exc:
            log.info("job %s (%s) will retry: %s", job.id, job.kind, exc)
            error, after = str(exc), exc.after
        except Exception as exc:
            log.exception("job %s (%s) failed on attempt %s", job.id, job.kind, job.attempt)
            error = f"{type(exc).__name__}: {exc}"
        else:
            if settled != SETTLED:
                await self._settle(queue.finish, job)
            return
        if job.attempt >= job.max_attempts:
            log.warning("job %s (%s) given up after %s attempts", job.id, job.kind, job.attempt)
            await self._give_up(job, error, why=f"Gave up after {job.attempt} attempts: {error}")
            return
        await self._settle(
            queue.reschedule,
            job,
            error=error,
            attempt=job.attempt,
            max_attempts=job.max_attempts,
            after=after,
        )

    async def _run_recurring(self, job: StoredJob, every: timedelta) -> None:
        error: str | None = None
        try:
            await self._handlers[job.kind](job)
            after = every
        except Exception as exc:
            log.exception("recurring job %s failed on attempt %s", job.kind, job.attempt)
            error, after = f"{type(exc).__name__}: {exc}", min(queue.backoff(job.attempt), every)
        await self._settle(queue.repeat, job, run_at=self._clock.now() + after, error=error)

    async def _give_up(self, job: StoredJob, error: str, *, why: str | None = None) -> None:
        """Mark the job failed with `error` and, in the same transaction, end what it stood
        for, saying `why` (default: the error)."""
        gave_up = self._gave_up.get(job.kind)
        async with unit_of_work(self._sessions, self._clock) as uow:
            if not await queue.give_up(uow, job_id=job.id, owner=self.owner, error=error):
                log.warning("job %s: lease lost to another worker before it was settled", job.id)
            elif gave_up is not None:
                await gave_up(uow, job, why or error)

    async def _settle(
        self,
        outcome: Callable[..., Awaitable[bool]],
        job: StoredJob,
        **values: object,
    ) -> None:
        async with unit_of_work(self._sessions, self._clock) as uow:
            if not await outcome(uow, job_id=job.id, owner=self.owner, **values):
                log.warning("job %s: lease lost to another worker before it was settled", job.id)


def _typed(kind: JobKind[P], job: StoredJob) -> ClaimedJob[P]:
    """The job with its payload read into `kind`'s model (UnreadablePayload if it cannot be)."""
    payload = kind.read(job.payload)
    return ClaimedJob(job.id, job.kind, payload, job.attempt, job.max_attempts, job.read)


def _reading(kind: JobKind[P], handler: Handler[P]) -> JobHandler:
    """`handler` given the job's payload read into `kind`'s model."""

    async def run(job: StoredJob) -> str | None:
        try:
            typed = _typed(kind, job)
        except UnreadablePayload as exc:
            raise PermanentFailure(str(exc)) from exc
        return await handler(typed)

    return run


def _reading_end(kind: JobKind[P], gave_up: GaveUp[P]) -> StoredGaveUp:
    """`gave_up` given the job's payload read into `kind`'s model; a payload it cannot read
    stood for nothing this kind can end."""

    async def end(uow: UnitOfWork, job: StoredJob, error: str) -> None:
        try:
            typed = _typed(kind, job)
        except UnreadablePayload:
            return
        await gave_up(uow, typed, error)

    return end


def _reading_claimed(kind: JobKind[P], read: Reader[P]) -> StoredReader:
    """`read` given the jobs' payloads read into `kind`'s model; a job whose payload it cannot
    read gets None (its run fails it, saying why)."""

    async def run(uow: UnitOfWork, jobs: list[StoredJob]) -> list[Any]:
        typed: dict[int, ClaimedJob[P]] = {}
        for index, job in enumerate(jobs):
            try:
                typed[index] = _typed(kind, job)
            except UnreadablePayload:
                continue
        values = list(await read(uow, list(typed.values()))) if typed else []
        found = dict(zip(typed, values, strict=True))
        return [found.get(index) for index in range(len(jobs))]

    return run

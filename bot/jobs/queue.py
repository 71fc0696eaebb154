"""Queue, claim, finish and reschedule jobs: each a short statement in the caller's transaction."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import Integer, Table, bindparam, func, insert, or_, select, update

from bot.db.expressions import one_of, one_of_named
from bot.db.statements import Prepared
from bot.db.tables import Job
from bot.db.types import UTCDateTime
from bot.db.uow import UnitOfWork
from bot.ids import new_id, new_ids
from bot.jobs import wakeups

QUEUED = "queued"
DONE = "done"
FAILED = "failed"
DEFAULT_MAX_ATTEMPTS = 8
BACKOFF_BASE = timedelta(seconds=5)
BACKOFF_CAP = timedelta(hours=1)
MAX_ERROR_LENGTH = 2000


@dataclass(frozen=True, slots=True)
class Backlog:
    """The jobs of one kind that are due and wait for a worker."""

    kind: str
    due: int
    oldest_run_at: datetime


P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class ClaimedJob(Generic[P]):
    """A leased job; its payload as stored (a dict), or as its kind's model for its handler."""

    id: str
    kind: str
    payload: P
    attempt: int  # 1 for the first run
    max_attempts: int
    # What its kind read for it in the claim's transaction (`Worker.register(read=...)`).
    read: Any = None


# A claimed job as the worker holds it: its payload as stored.
StoredJob = ClaimedJob[dict[str, Any]]


async def enqueue(
    uow: UnitOfWork,
    *,
    kind: str,
    payload: dict[str, Any],
    run_at: datetime | None = None,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> str:
    """Add a job in the caller's transaction: it exists for workers once that commits. The
    payload as stored: code queues a job through its kind (`bot.jobs.kinds.JobKind.enqueue`)."""
    now = uow.clock.now()
    job_id = new_id()
    await uow.execute(
        insert(Job).values(
            id=job_id,
            kind=kind,
            payload=payload,
            state=QUEUED,
            run_at=run_at or now,
            attempts=0,
            max_attempts=max_attempts,
            lease_owner=None,
            lease_until=None,
            last_error=None,
            created_at=now,
            finished_at=None,
        )
    )
    uow.on_commit(wakeups.ring)
    return job_id


_JOBS = cast(Table, Job.__table__)
_INSERT = Prepared(insert(_JOBS))


async def enqueue_many(
    uow: UnitOfWork,
    *,
    kind: str,
    payloads: list[dict[str, Any]],
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    run_at: Sequence[datetime] | None = None,
    ids: Sequence[str] | None = None,
) -> None:
    """`enqueue` for many jobs of one kind in one statement: due now, or each at its `run_at`;
    `ids` gives theirs, for a caller that records them."""
    if not payloads:
        return
    now = uow.clock.now()
    rows: list[dict[str, Any]] = [
        {"id": job_id, "payload": payload}
        for job_id, payload in zip(ids or new_ids(len(payloads)), payloads, strict=True)
    ]
    same = {
        "kind": kind,
        "state": QUEUED,
        "attempts": 0,
        "max_attempts": max_attempts,
        "lease_owner": None,
        "lease_until": None,
        "last_error": None,
        "created_at": now,
        "finished_at": None,
    }
    if run_at is None:
        await uow.insert_many(_JOBS, rows, {**same, "run_at": now})
    else:  # times per row: sent together, a statement each (insert_many takes text and JSON)
        for row, due in zip(rows, run_at, strict=True):
            row["run_at"] = due
        await uow.execute_many(_INSERT, rows, same)
    uow.on_commit(wakeups.ring)


# No worker holds it: never leased, or its lease ran out.
_WAITING = or_(Job.lease_until.is_(None), Job.lease_until <= bindparam("now"))
_DUE = (
    select(Job.id)
    .where(Job.state == QUEUED, Job.run_at <= bindparam("now"), _WAITING)
    .order_by(Job.run_at)
    .limit(bindparam("limit", type_=Integer()))
    # PostgreSQL: concurrent workers skip each other's rows; SQLite has one writer anyway.
    .with_for_update(skip_locked=True)
)
_CLAIMED = Prepared(
    update(Job)
    .where(Job.id.in_(_DUE.scalar_subquery()))
    .values(
        attempts=Job.attempts + 1,
        lease_owner=bindparam("owner"),
        lease_until=bindparam("lease_until", type_=UTCDateTime()),
    )
    .returning(Job.id, Job.kind, Job.payload, Job.attempts, Job.max_attempts, Job.run_at)
)
_FINISHED = Prepared(
    update(Job)
    .where(
        one_of_named(Job.id, "ids"),
        Job.lease_owner == bindparam("owner"),
        Job.state == QUEUED,
    )
    .values(state=DONE, finished_at=bindparam("now", type_=UTCDateTime()), lease_until=None)
)


_BACKLOG = Prepared(
    select(Job.kind, func.count().label("due"), func.min(Job.run_at).label("oldest_run_at"))
    .where(Job.state == QUEUED, Job.run_at <= bindparam("now"), _WAITING)
    .group_by(Job.kind)
)


async def backlog(uow: UnitOfWork) -> list[Backlog]:
    """The due jobs no worker holds, by kind: one grouped statement (metrics read it)."""
    rows = await uow.rows(_BACKLOG, {"now": uow.clock.now()})
    return [Backlog(row["kind"], row["due"], row["oldest_run_at"]) for row in rows]


async def claim(uow: UnitOfWork, *, owner: str, lease: timedelta, limit: int) -> list[StoredJob]:
    """Lease up to `limit` due jobs to `owner`, oldest due first; rows leased by a live worker
    are skipped. One statement: an UPDATE of the rows a locking subquery picks."""
    now = uow.clock.now()
    values = {"now": now, "limit": limit, "owner": owner, "lease_until": now + lease}
    rows = await uow.execute(_CLAIMED, values)
    rows.sort(key=lambda row: (row["run_at"], row["id"]))
    return [
        ClaimedJob(
            row["id"], row["kind"], dict(row["payload"]), row["attempts"], row["max_attempts"]
        )
        for row in rows
    ]


async def finish(uow: UnitOfWork, *, job_id: str, owner: str) -> bool:
    """Mark the job done, if `owner` still holds its lease (False: another worker took it over)."""
    return await _settle(
        uow, job_id, owner, state=DONE, finished_at=uow.clock.now(), lease_until=None
    )


async def finish_many(uow: UnitOfWork, *, job_ids: list[str], owner: str) -> None:
    """Mark the jobs done that `owner` still holds, in one statement."""
    await uow.execute(_FINISHED, {"ids": job_ids, "owner": owner, "now": uow.clock.now()})


async def reschedule(
    uow: UnitOfWork,
    *,
    job_id: str,
    owner: str,
    error: str,
    attempt: int,
    max_attempts: int,
    after: timedelta | None = None,
) -> bool:
    """Record the failure; run again after `after` (default: exponential backoff) or give up."""
    if attempt >= max_attempts:
        return await give_up(uow, job_id=job_id, owner=owner, error=error)
    delay = after if after is not None else backoff(attempt)
    return await _settle(
        uow,
        job_id,
        owner,
        run_at=uow.clock.now() + delay,
        lease_owner=None,
        lease_until=None,
        last_error=error[:MAX_ERROR_LENGTH],
    )


async def give_up(uow: UnitOfWork, *, job_id: str, owner: str, error: str) -> bool:
    """Mark the job failed now: retrying cannot help."""
    return await _settle(
        uow,
        job_id,
        owner,
        state=FAILED,
        finished_at=uow.clock.now(),
        lease_until=None,
        last_error=error[:MAX_ERROR_LENGTH],
    )


async def postpone(uow: UnitOfWork, *, job_id: str, owner: str, run_at: datetime) -> bool:
    """Run the job again at `run_at`; the run that ends here did not count as an attempt."""
    return await _settle(
        uow,
        job_id,
        owner,
        run_at=run_at,
        lease_owner=None,
        lease_until=None,
        attempts=Job.attempts - 1,
    )


async def repeat(
    uow: UnitOfWork, *, job_id: str, owner: str, run_at: datetime, error: str | None = None
) -> bool:
    """Put a recurring job back for its next run (`error`: this run failed, kept to be read)."""
    values: dict[str, Any] = {"run_at": run_at, "lease_owner": None, "lease_until": None}
    if error is None:
        values.update(attempts=0, last_error=None)
    else:
        values.update(last_error=error[:MAX_ERROR_LENGTH])
    return await _settle(uow, job_id, owner, **values)


def backoff(attempt: int) -> timedelta:
    """5 s after the first failure, doubling, at most an hour."""
    return min(BACKOFF_BASE * 2 ** (attempt - 1), BACKOFF_CAP)


async def _settle(uow: UnitOfWork, job_id: str, owner: str, **values: Any) -> bool:
    settled = await uow.execute(
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.state == QUEUED)
        .values(**values)
        .returning(Job.id)
    )
    return bool(settled)


async def release(uow: UnitOfWork, *, job_ids: list[str], owner: str) -> None:
    """Give back jobs `owner` holds but will not finish (it is shutting down): due at once for
    another worker, the interrupted run not counted as an attempt."""
    if not job_ids:
        return
    await uow.execute(
        update(Job)
        .where(one_of(Job.id, job_ids), Job.lease_owner == owner, Job.state == QUEUED)
        .values(
            run_at=uow.clock.now(),
            lease_owner=None,
            lease_until=None,
            attempts=Job.attempts - 1,
        )
    )

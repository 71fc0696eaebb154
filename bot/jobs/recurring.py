"""Recurring jobs: one row per kind in `jobs`, claimed under a lease like any other job, and
put back for its next run instead of finished (the due-date sweep)."""

import hashlib
from datetime import datetime

from sqlalchemy import exists, insert, literal, select

from bot.db.tables import Job
from bot.db.uow import UnitOfWork
from bot.jobs import queue
from bot.jobs.kinds import JobKind, P


def recurring_id(kind: str) -> str:
    """The row's id, the same in every process: a 24-hex digest of the kind."""
    return hashlib.sha256(kind.encode()).hexdigest()[:24]


async def ensure(uow: UnitOfWork, *, kind: JobKind[P], payload: P, first_run: datetime) -> str:
    """Add the kind's row unless it exists (processes starting at once add one between them)."""
    job_id = recurring_id(kind.name)
    await uow.hold(f"recurring {kind.name}")  # PostgreSQL: the check and the insert, one at a time
    row = {
        "id": job_id,
        "kind": kind.name,
        "payload": kind.stored(payload),
        "state": queue.QUEUED,
        "run_at": first_run,
        "attempts": 0,
        "max_attempts": kind.max_attempts,
        "created_at": first_run,
    }
    absent = ~exists().where(Job.id == job_id)
    values = select(*(literal(value, Job.__table__.c[name].type) for name, value in row.items()))
    await uow.execute(insert(Job).from_select(list(row), values.where(absent)))
    return job_id

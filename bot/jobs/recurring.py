"""Recurring jobs: one row per kind in `jobs`, claimed under a lease like any other job, and
put back for its next run instead of finished (the due-date sweep)."""

import hashlib
from datetime import datetime
from typing import Any

from sqlalchemy import exists, insert, literal, select

from bot.db.tables import Job
from bot.db.uow import UnitOfWork
from bot.jobs import queue


def recurring_id(kind: str) -> str:
    """The row's id, the same in every process: a 24-hex digest of the kind."""
    return hashlib.sha256(kind.encode()).hexdigest()[:24]


async def ensure(
    uow: UnitOfWork, *, kind: str, payload: dict[str, Any], first_run: datetime
) -> str:
    """Add the kind's row unless it exists (processes starting at once add one between them)."""
    job_id = recurring_id(kind)
    await uow.hold(f"recurring {kind}")  # PostgreSQL: the check and the insert, one at a time
    row = {
        "id": job_id,
        "kind": kind,
        "payload": payload,
        "state": queue.QUEUED,
        "run_at": first_run,
        "attempts": 0,
        "max_attempts": queue.DEFAULT_MAX_ATTEMPTS,
        "created_at": first_run,
    }
    absent = ~exists().where(Job.id == job_id)
    values = select(*(literal(value, Job.__table__.c[name].type) for name, value in row.items()))
    await uow.execute(insert(Job).from_select(list(row), values.where(absent)))
    return job_id

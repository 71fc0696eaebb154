"""The sync engine's job kinds and the per-project poller's row (an item's push is queued
with its change: `bot.sync_records.outbox`)."""

import hashlib
from datetime import datetime

from sqlalchemy import exists, insert, literal, select, update

from bot.db.tables import Job, ProjectSync
from bot.db.uow import UnitOfWork
from bot.jobs import queue, wakeups
from bot.jobs.kinds import JobKind, Payload


class ProjectJob(Payload):
    project_id: str


# Link a project: its hooks at the source, then the first import (resumable), then polling.
LINK = JobKind("sync.link", ProjectJob, max_attempts=1_000)
# A project's poller: sends what waits, reads what changed; one row per project, put back for
# its next run, so one process at a time polls it (the jobs table's claim and lease).
POLL = JobKind("sync.poll", ProjectJob, max_attempts=1_000)


def poller_id(project_id: str) -> str:
    """The project's poller row id, the same in every process."""
    return hashlib.sha256(f"{POLL.name} {project_id}".encode()).hexdigest()[:24]


async def poll_at(uow: UnitOfWork, *, project_id: str, run_at: datetime) -> None:
    """Have the project polled at `run_at` (sooner if already due sooner): its row is added,
    or put back if it had finished, or brought forward; a poll running now runs again."""
    job_id = poller_id(project_id)
    # A poll running now read the source before this: counted, it runs again when it ends.
    # (The sync row is locked before the poller's hold, in the order saving takes them.)
    await uow.execute(
        update(ProjectSync)
        .where(ProjectSync.project_id == project_id)
        .values(asked=ProjectSync.asked + 1)
    )
    await uow.hold(f"sync poller {project_id}")  # the check and the insert, one at a time
    row = {
        "id": job_id,
        "kind": POLL.name,
        "payload": POLL.stored(ProjectJob(project_id=project_id)),
        "state": queue.QUEUED,
        "run_at": run_at,
        "attempts": 0,
        "max_attempts": POLL.max_attempts,
        "created_at": run_at,
    }
    absent = ~exists().where(Job.id == job_id)
    values = select(*(literal(value, Job.__table__.c[name].type) for name, value in row.items()))
    await uow.execute(insert(Job).from_select(list(row), values.where(absent)))
    await uow.execute(
        update(Job)
        .where(Job.id == job_id, (Job.state != queue.QUEUED) | (Job.run_at > run_at))
        .values(state=queue.QUEUED, run_at=run_at, attempts=0, finished_at=None)
    )
    uow.on_commit(wakeups.ring)


async def link_once(uow: UnitOfWork, *, project_id: str) -> None:
    """Start the project's link (hooks, then the import) unless its link job waits or runs
    already: one import at a time, whichever process asks; asked again, a waiting one runs now."""
    now = uow.clock.now()
    await uow.hold(f"sync link {project_id}")  # the check and the insert, one at a time
    waiting = await uow.value(
        select(Job.id).where(
            Job.kind == LINK.name,
            Job.state == queue.QUEUED,
            Job.payload["projectId"].as_string() == project_id,  # as stored, by alias
        )
    )
    if waiting is None:
        await LINK.enqueue(uow, ProjectJob(project_id=project_id))
        return
    await uow.execute(update(Job).where(Job.id == waiting, Job.run_at > now).values(run_at=now))
    uow.on_commit(wakeups.ring)

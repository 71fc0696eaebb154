"""What /metrics reads of the sync at scrape time: the changes waiting to go out, and how far
behind its source the least recently pulled project is. Summed over projects: a project id as a
label would make a series per project."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from bot.db.tables import Item, Project, ProjectSync
from bot.db.types import UTCDateTime
from bot.db.uow import UnitOfWork
from bot.sync_records.schemas import Direction, ItemSyncStatus


@dataclass(frozen=True, slots=True)
class SyncBacklog:
    pending: int  # items whose change waits to go out, in projects whose sync is on
    oldest_pull: datetime | None  # the least recent last pull (or link) of a project that reads


async def backlog(uow: UnitOfWork) -> SyncBacklog:
    syncing = (
        select(ProjectSync.project_id)
        .join(Project, Project.id == ProjectSync.project_id)
        .where(ProjectSync.enabled.is_(True), Project.enable.is_(True))
    )
    pending = await uow.value(
        select(func.count())
        .select_from(Item)
        .where(
            Item.project_id.in_(syncing.scalar_subquery()),
            Item.sync_status == ItemSyncStatus.PENDING.value,
        )
    )
    # A project not pulled yet (its import has not begun) is behind since it was linked.
    oldest = await uow.value(
        select(
            func.min(
                func.coalesce(ProjectSync.last_pull_at, ProjectSync.updated_at),
                type_=UTCDateTime(),
            )
        )
        .join(Project, Project.id == ProjectSync.project_id)
        .where(
            ProjectSync.enabled.is_(True),
            Project.enable.is_(True),
            ProjectSync.direction != Direction.OUT.value,
        )
    )
    return SyncBacklog(pending=int(pending or 0), oldest_pull=oldest)

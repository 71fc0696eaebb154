"""What /metrics reads of the sync at scrape time: the changes waiting to go out, and how far
behind its source the least recently pulled project is. Summed over projects: a project id as a
label would make a series per project."""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from bot.db.tables import DiscussionMessage, Item, Project, ProjectSync, SyncComment
from bot.db.types import UTCDateTime
from bot.db.uow import UnitOfWork
from bot.sync.links import COMMENT_WAITS
from bot.sync_records.schemas import Direction, ItemSyncStatus


@dataclass(frozen=True, slots=True)
class SyncBacklog:
    # Changes waiting to go out, in projects whose sync is on: items changed, and comments
    # made, edited or deleted here (a project's `pending`, summed).
    pending: int
    oldest_pull: datetime | None  # the least recent last pull (or link) of a project that reads


async def backlog(uow: UnitOfWork) -> SyncBacklog:
    syncing = (
        select(ProjectSync.project_id)
        .join(Project, Project.id == ProjectSync.project_id)
        .where(ProjectSync.enabled.is_(True), Project.enable.is_(True))
    )
    changed_items = await uow.value(
        select(func.count())
        .select_from(Item)
        .where(
            Item.project_id.in_(syncing.scalar_subquery()),
            Item.sync_status == ItemSyncStatus.PENDING.value,
        )
    )
    # Comments made, edited or deleted here wait too, as a project's `pending` counts them.
    waiting_comments = await uow.value(
        select(func.count())
        .select_from(SyncComment)
        .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
        .join(Item, Item.id == SyncComment.item_id)
        .where(Item.project_id.in_(syncing.scalar_subquery()), COMMENT_WAITS)
    )
    pending = int(changed_items or 0) + int(waiting_comments or 0)
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
    return SyncBacklog(pending=pending, oldest_pull=oldest)

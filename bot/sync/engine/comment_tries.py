"""A comment sent from here whose answer was lost (a 5xx once it was made there, a hang, a
crash) is looked for at the source before it is sent again, as a lost create is: no source takes
an idempotency key for comments. Until it is found, a pull leaves a comment there that reads as
it alone, rather than storing it as the source's and telling it in the thread."""

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import select, update

from bot.db.statements import Row
from bot.db.tables import DiscussionMessage, Project, ProjectSync, SyncComment, SyncRecord
from bot.db.uow import UnitOfWork
from bot.sync.links import COMMENTED
from bot.sync.source import SourceComment
from bot.sync_records.schemas import Direction

UNKNOWN_AUTHOR = "Someone"
SLACK = timedelta(minutes=5)  # the clocks here and at the source may differ


async def sending_project(uow: UnitOfWork, item_id: str) -> str | None:
    """The project the item syncs with when it sends comments there (None: not synced, only
    read, or its source keeps no comments)."""
    project_id = await uow.value(
        select(SyncRecord.project_id)
        .join(ProjectSync, ProjectSync.project_id == SyncRecord.project_id)
        .join(Project, Project.id == SyncRecord.project_id)
        .where(
            SyncRecord.item_id == item_id,
            SyncRecord.deleted.is_(False),
            ProjectSync.enabled.is_(True),
            ProjectSync.direction != Direction.IN.value,
            Project.source.in_([kind.value for kind in COMMENTED]),
        )
    )
    return str(project_id) if project_id is not None else None


async def waiting(uow: UnitOfWork, *, item_id: str, tried: bool = False) -> list[Row]:
    """The item's comments waiting to go out (`tried`: those already sent once), oldest first:
    each with its `message_id`, `text`, `author`, `tried_at` and `deleted_at` (deleted here
    since it was made)."""
    statement = (
        select(
            SyncComment.message_id,
            SyncComment.text,
            SyncComment.tried_at,
            DiscussionMessage.author_name.label("author"),
            DiscussionMessage.deleted_at,
        )
        .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
        .where(SyncComment.item_id == item_id, SyncComment.source_comment_id.is_(None))
        .order_by(DiscussionMessage.created_at, DiscussionMessage.id)
    )
    if tried:
        statement = statement.where(SyncComment.tried_at.is_not(None))
    return await uow.rows(statement)


def author_of(comment: Row) -> str:
    return str(comment["author"] or UNKNOWN_AUTHOR)


async def found_there(
    uow: UnitOfWork, item_id: str, there: Sequence[SourceComment], comment: Row
) -> SourceComment | None:
    """The comment there that is this one sent from here, its answer lost: one that reads as
    it and whose id is not kept here already."""
    known = set(
        await uow.values(
            select(SyncComment.source_comment_id).where(
                SyncComment.item_id == item_id,
                SyncComment.source_comment_id.in_([c.id for c in there]),
            )
        )
    )
    return next((c for c in there if c.id not in known and reads_as(c, comment)), None)


def reads_as(found: SourceComment, comment: Row) -> bool:
    """Whether a comment there reads as this one sent from here (made since it was first
    sent, its author's name and its words in it, whatever markup the source added)."""
    tried_at = comment["tried_at"]
    if tried_at is None or found.created_at < tried_at - SLACK:
        return False
    said = " ".join(found.text.split())
    return author_of(comment) in said and " ".join((comment["text"] or "").split()) in said


async def words_taken(uow: UnitOfWork, comment: Row) -> None:
    """The comment's words, as read to be sent, are the source's now: nothing of them waits to go
    out (an edit made since it was read still does)."""
    await uow.execute(
        update(SyncComment)
        .where(
            SyncComment.message_id == comment["message_id"],
            SyncComment.text == comment["text"],
        )
        .values(text=None)
    )

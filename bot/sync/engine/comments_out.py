"""Comments made here sent to the item's source, oldest first, once the item is there: each
with its author's name, and its id there kept so that a pull never brings it back in. A source
that fails keeps them waiting (the push job is retried), and one whose answer was lost is
looked for there before it is sent again (`comment_tries`); a source that refuses a comment, or
has lost the item, drops it with a line in the sync log. A comment made here is first noted
waiting, in its own transaction (`note_comment`)."""

from collections.abc import Sequence

from sqlalchemy import delete, insert, select, update

from bot.db.statements import Row
from bot.db.tables import Project, ProjectSync, SyncComment, SyncRecord
from bot.db.uow import UnitOfWork
from bot.discussions import service as discussions
from bot.sync import log
from bot.sync.engine.comment_tries import author_of, reads_as, waiting
from bot.sync.engine.units import Opened, Units
from bot.sync.links import COMMENTED
from bot.sync.source import SourceComment, SourceNotFound, SourceRefused
from bot.sync_records.outbox import PUSH, ItemJob
from bot.sync_records.schemas import Direction


async def note_comment(uow: UnitOfWork, *, item_id: str, message_id: str, text: str) -> None:
    """A comment made here on an item synced with a source that takes comments: kept waiting
    (its text) and the item's push job queued, which sends it once the item is there."""
    if uow.from_source:
        return
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
    if project_id is None:
        return  # not synced, only read, or its source keeps no comments
    await uow.execute(
        insert(SyncComment).values(
            message_id=message_id, item_id=item_id, source_comment_id=None, text=text
        )
    )
    await PUSH.enqueue(uow, ItemJob(project_id=project_id, item_id=item_id))


async def send_waiting(units: Units, opened: Opened, item_id: str) -> None:
    async with units.unit(opened, write=False) as uow:
        target = await uow.value(
            select(SyncRecord.source_item_id).where(
                SyncRecord.item_id == item_id, SyncRecord.deleted.is_(False)
            )
        )
        comments = await waiting(uow, item_id=item_id) if target is not None else []
    for comment in comments:
        made = await _made_before(units, opened, item_id, target, comment)
        if made is None:
            try:
                made = await opened.source.add_comment(
                    target, comment["text"] or "", author_name=author_of(comment)
                )
            except (SourceRefused, SourceNotFound) as exc:
                await _dropped(units, opened, item_id, target, comment["message_id"], exc)
                continue
        async with units.unit(opened) as uow:
            # A pull that read the comment there before its id was kept here stored it as
            # one of the source's: that copy goes, this one stays.
            await discussions.forget_source_comments(
                uow,
                message_ids=select(SyncComment.message_id).where(
                    SyncComment.item_id == item_id, SyncComment.source_comment_id == made.id
                ),
            )
            await uow.execute(
                update(SyncComment)
                .where(SyncComment.message_id == comment["message_id"])
                .values(source_comment_id=made.id)
            )
            await log.write(
                uow,
                project_id=opened.ctx.project_id,
                message=f"Sent a comment by {author_of(comment)}",
                item_id=item_id,
                source_id=target,
            )


async def _made_before(
    units: Units, opened: Opened, item_id: str, target: str, comment: Row
) -> SourceComment | None:
    """Before a comment is sent: noted as sent when it never was; found there when it was
    (its answer lost), unless its id is kept here already."""
    if comment["tried_at"] is None:
        async with units.unit(opened) as uow:
            await uow.execute(
                update(SyncComment)
                .where(SyncComment.message_id == comment["message_id"])
                .values(tried_at=uow.clock.now())
            )
        return None
    there = await opened.source.comments(target)
    async with units.unit(opened, write=False) as uow:
        known = await _known(uow, item_id, there)
    return next((c for c in there if c.id not in known and reads_as(c, comment)), None)


async def _known(uow: UnitOfWork, item_id: str, there: Sequence[SourceComment]) -> set[str]:
    return set(
        await uow.values(
            select(SyncComment.source_comment_id).where(
                SyncComment.item_id == item_id,
                SyncComment.source_comment_id.in_([c.id for c in there]),
            )
        )
    )


async def _dropped(
    units: Units, opened: Opened, item_id: str, target: str, message_id: str, exc: Exception
) -> None:
    async with units.unit(opened) as uow:
        await uow.execute(delete(SyncComment).where(SyncComment.message_id == message_id))
        await log.write(
            uow,
            project_id=opened.ctx.project_id,
            level=log.ERROR,
            message=f"{opened.ctx.source} did not take a comment: {exc or 'the item is gone'}",
            item_id=item_id,
            source_id=target,
        )

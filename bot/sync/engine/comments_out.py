"""Comments made here sent to the item's source, oldest first, once the item is there: each
with its author's name, and its id there kept so that a pull never brings it back in. A source
that fails keeps them waiting (the push job is retried); one that refuses a comment, or has lost
the item, drops it with a line in the sync log."""

from sqlalchemy import delete, select, update

from bot.db.tables import DiscussionMessage, SyncComment, SyncRecord
from bot.sync import log
from bot.sync.engine.comments_in import UNKNOWN_AUTHOR
from bot.sync.engine.units import Opened, Units
from bot.sync.source import SourceNotFound, SourceRefused


async def send_waiting(units: Units, opened: Opened, item_id: str) -> None:
    async with units.unit(opened, write=False) as uow:
        target = await uow.value(
            select(SyncRecord.source_item_id).where(
                SyncRecord.item_id == item_id, SyncRecord.deleted.is_(False)
            )
        )
        waiting = (
            await uow.rows(
                select(SyncComment.message_id, SyncComment.text, DiscussionMessage.author_name)
                .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
                .where(SyncComment.item_id == item_id, SyncComment.source_comment_id.is_(None))
                .order_by(DiscussionMessage.created_at, DiscussionMessage.id)
            )
            if target is not None
            else []
        )
    for comment in waiting:
        author, text = comment["author_name"] or UNKNOWN_AUTHOR, comment["text"] or ""
        try:
            made = await opened.source.add_comment(target, text, author_name=author)
        except (SourceRefused, SourceNotFound) as exc:
            await _dropped(units, opened, item_id, target, comment["message_id"], exc)
            continue
        async with units.unit(opened) as uow:
            # A pull that read the comment there before its id was kept here stored it as
            # one of the source's: that copy goes, this one stays.
            await uow.execute(
                delete(DiscussionMessage).where(
                    DiscussionMessage.id.in_(
                        select(SyncComment.message_id).where(
                            SyncComment.item_id == item_id,
                            SyncComment.source_comment_id == made.id,
                        )
                    )
                )
            )
            await uow.execute(
                update(SyncComment)
                .where(SyncComment.message_id == comment["message_id"])
                .values(source_comment_id=made.id)
            )
            await log.write(
                uow,
                project_id=opened.ctx.project_id,
                message=f"Sent a comment by {author}",
                item_id=item_id,
                source_id=target,
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

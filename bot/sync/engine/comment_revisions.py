"""Edits and deletions made here of comments the source has, sent there once each.

A comment edited here (in the item's thread) keeps its new words waiting in `SyncComment.text`
until the source has taken them; one deleted here waits as its message's deletion until the
source has deleted it too (then it is forgotten). Both are noted in the change's own
transaction (`note_revision`, the discussions' `Revised` port) with the item's push job, and
sent by that job after the item's new comments; a source that fails keeps them waiting, and
the job is retried. A comment gone there already is forgotten; one the source refuses to edit
is left as it is there, with a line in the sync log. Only what changed here goes: a change
there comes back in by a pull (`comments_in`), never out again."""

from sqlalchemy import delete, select, update

from bot.db.statements import Row
from bot.db.tables import DiscussionMessage, SyncComment
from bot.db.uow import UnitOfWork
from bot.sync import log
from bot.sync.engine.comment_tries import author_of, sending_project, words_taken
from bot.sync.engine.units import Opened, Units
from bot.sync.links import COMMENT_WAITS
from bot.sync.source import SourceNotFound, SourceRefused
from bot.sync_records.outbox import PUSH, ItemJob


async def note_revision(uow: UnitOfWork, *, message_id: str, text: str, deleted: bool) -> None:
    """A comment of a synced item edited (`text`, its words now) or deleted here."""
    if uow.from_source:
        return
    comment = await uow.row(
        select(SyncComment.item_id, SyncComment.source_comment_id, SyncComment.tried_at).where(
            SyncComment.message_id == message_id
        )
    )
    if comment is None:
        return  # not a comment that travels
    project_id = await sending_project(uow, comment["item_id"])
    if project_id is None:
        return
    never_sent = comment["source_comment_id"] is None and comment["tried_at"] is None
    if deleted and never_sent:
        await uow.execute(delete(SyncComment).where(SyncComment.message_id == message_id))
        return  # nothing there to delete
    if not deleted:
        if comment["source_comment_id"] is not None and comment["tried_at"] is None:
            return  # the source's own comment, told here by the app: its words are the source's
        await uow.execute(
            update(SyncComment).where(SyncComment.message_id == message_id).values(text=text)
        )
    await PUSH.enqueue(uow, ItemJob(project_id=project_id, item_id=comment["item_id"]))


async def send(units: Units, opened: Opened, item_id: str, target: str) -> None:
    """The item's comments edited or deleted here since the source took them, sent there."""
    async with units.unit(opened, write=False) as uow:
        revised = await uow.rows(
            select(
                SyncComment.message_id,
                SyncComment.source_comment_id,
                SyncComment.text,
                DiscussionMessage.author_name.label("author"),
                DiscussionMessage.deleted_at,
            )
            .join(DiscussionMessage, DiscussionMessage.id == SyncComment.message_id)
            .where(
                SyncComment.item_id == item_id,
                SyncComment.source_comment_id.is_not(None),
                COMMENT_WAITS,
            )
            .order_by(DiscussionMessage.created_at, DiscussionMessage.id)
        )
    for comment in revised:
        if comment["deleted_at"] is not None:
            await opened.source.delete_comment(target, comment["source_comment_id"])
            await _forgotten(units, opened, item_id, target, comment, "Deleted a comment by")
            continue
        try:
            await opened.source.edit_comment(
                target,
                comment["source_comment_id"],
                comment["text"] or "",
                author_name=author_of(comment),
            )
        except SourceNotFound:
            await _forgotten(units, opened, item_id, target, comment, "Gone there: a comment by")
            continue
        except SourceRefused as exc:
            await _edited(units, opened, item_id, target, comment, f"did not take an edit: {exc}")
            continue
        await _edited(units, opened, item_id, target, comment, None)


async def _edited(
    units: Units, opened: Opened, item_id: str, target: str, comment: Row, refused: str | None
) -> None:
    """The edit no longer waits (an edit made since it was read still does)."""
    async with units.unit(opened) as uow:
        await words_taken(uow, comment)
        await log.write(
            uow,
            project_id=opened.ctx.project_id,
            level=log.ERROR if refused else log.INFO,
            message=f"{opened.ctx.source} {refused}"
            if refused
            else f"Sent an edit of a comment by {author_of(comment)}",
            item_id=item_id,
            source_id=target,
        )


async def _forgotten(
    units: Units, opened: Opened, item_id: str, target: str, comment: Row, said: str
) -> None:
    async with units.unit(opened) as uow:
        await uow.execute(
            delete(SyncComment).where(SyncComment.message_id == comment["message_id"])
        )
        await log.write(
            uow,
            project_id=opened.ctx.project_id,
            message=f"{said} {author_of(comment)}",
            item_id=item_id,
            source_id=target,
        )

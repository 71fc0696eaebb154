"""Comments made here sent to the item's source, oldest first, once the item is there: each
with its author's name, and its id there kept so that a pull never brings it back in. A source
that fails keeps them waiting (the push job is retried), and one whose answer was lost is
looked for there before it is sent again (`comment_tries`); a source that refuses a comment, or
has lost the item, drops it with a line in the sync log. A comment made here is first noted
waiting, in its own transaction (`note_comment`); one deleted here before it went is never
sent (or, its answer lost, withdrawn there). Then the edits and deletions made here of those
sent (`comment_revisions`)."""

import asyncio
import weakref

from sqlalchemy import delete, insert, select, update

from bot.db.statements import Row
from bot.db.tables import SyncComment, SyncRecord
from bot.db.uow import UnitOfWork
from bot.discussions import service as discussions
from bot.sync import log
from bot.sync.engine import comment_revisions
from bot.sync.engine.comment_tries import (
    author_of,
    found_there,
    sending_project,
    waiting,
    words_taken,
)
from bot.sync.engine.units import Opened, Units
from bot.sync.source import SourceNotFound, SourceRefused
from bot.sync_records.outbox import PUSH, ItemJob

_SENDING: "weakref.WeakValueDictionary[str, asyncio.Lock]" = weakref.WeakValueDictionary()


async def note_comment(uow: UnitOfWork, *, item_id: str, message_id: str, text: str) -> None:
    """A comment made here on an item synced with a source that takes comments: kept waiting
    (its text) and the item's push job queued, which sends it once the item is there."""
    if uow.from_source:
        return
    project_id = await sending_project(uow, item_id)
    if project_id is None:
        return  # not synced, only read, or its source keeps no comments
    await uow.execute(
        insert(SyncComment).values(
            message_id=message_id, item_id=item_id, source_comment_id=None, text=text
        )
    )
    await PUSH.enqueue(uow, ItemJob(project_id=project_id, item_id=item_id))


async def send_waiting(units: Units, opened: Opened, item_id: str) -> None:
    """The item's comments waiting, sent by one job of this process at a time (each change
    queues a push job, and several may run at once)."""
    lock = _SENDING.get(item_id)
    if lock is None:
        lock = _SENDING[item_id] = asyncio.Lock()
    async with lock:
        await _send_waiting(units, opened, item_id)


async def _send_waiting(units: Units, opened: Opened, item_id: str) -> None:
    async with units.unit(opened, write=False) as uow:
        target = await uow.value(
            select(SyncRecord.source_item_id).where(
                SyncRecord.item_id == item_id, SyncRecord.deleted.is_(False)
            )
        )
        comments = await waiting(uow, item_id=item_id) if target is not None else []
    if target is None:
        return
    for comment in comments:
        if comment["deleted_at"] is not None:
            await _withdrawn(units, opened, item_id, target, comment)
            continue
        if comment["tried_at"] is None:
            if not await _noted_tried(units, opened, comment["message_id"]):
                continue  # deleted here meanwhile (never sent), or being sent elsewhere
            made = None
        else:  # sent before, its answer lost: it may be there already
            there = await opened.source.comments(target)
            async with units.unit(opened, write=False) as uow:
                made = await found_there(uow, item_id, there, comment)
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
            await words_taken(uow, comment)
            await log.write(
                uow,
                project_id=opened.ctx.project_id,
                message=f"Sent a comment by {author_of(comment)}",
                item_id=item_id,
                source_id=target,
            )
    await comment_revisions.send(units, opened, item_id, target)


async def _noted_tried(units: Units, opened: Opened, message_id: str) -> bool:
    """Note a comment as sent before it is, so a lost answer has it looked for there; False
    when it no longer waits (deleted here meanwhile) or another process is sending it."""
    async with units.unit(opened) as uow:
        noted = await uow.execute(
            update(SyncComment)
            .where(SyncComment.message_id == message_id, SyncComment.tried_at.is_(None))
            .values(tried_at=uow.clock.now())
            .returning(SyncComment.message_id)
        )
    return bool(noted)


async def _withdrawn(units: Units, opened: Opened, item_id: str, target: str, comment: Row) -> None:
    """A comment deleted here before its id there was known: deleted there too when it was
    made there after all (its answer lost), then no longer waiting."""
    if comment["tried_at"] is not None:
        there = await opened.source.comments(target)
        async with units.unit(opened, write=False) as uow:
            made = await found_there(uow, item_id, there, comment)
        if made is not None:
            await opened.source.delete_comment(target, made.id)
    async with units.unit(opened) as uow:
        await uow.execute(
            delete(SyncComment).where(SyncComment.message_id == comment["message_id"])
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

"""Sending changes made here to the source: one item at a time, with the source's guard (a stale
write is read back and tried again), a lost create found rather than made twice, a refusal
kept on the item; then the comments made on it here."""

from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, update

from bot import outcomes
from bot.db.changes import write_changes
from bot.db.tables import Item, Job, SyncRecord
from bot.jobs import queue
from bot.sync import links, log
from bot.sync.engine import comments_out, creates, inbound, outbound
from bot.sync.engine.reading import Reader
from bot.sync.engine.units import OUT, Opened, Units
from bot.sync.source import (
    SourceChange,
    SourceError,
    SourceItem,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceThrottled,
)
from bot.sync_records.outbox import PUSH
from bot.sync_records.schemas import ItemSyncStatus

STALE_TRIES = 3  # a write whose guard fails is pulled and tried again, this many times in all
# What a refusal leaves on the item: a workflow's missing transition (its code said so), else
# the source's error; both clear once a later change goes through.
REFUSED = (ItemSyncStatus.TRANSITION_NOTFOUND, ItemSyncStatus.SOURCE_ERROR)


class Sender:
    def __init__(self, units: Units, reader: Reader) -> None:
        self._units, self._reader = units, reader

    async def push_pending(self, opened: Opened) -> None:
        """Send what waits with no push job of its own to send it (left while paused): an item
        is sent by one job at a time, never by its job and the poll together."""
        async with self._units.unit(opened, write=False) as uow:
            waiting = await uow.values(
                select(SyncRecord.item_id)
                .outerjoin(Item, Item.id == SyncRecord.item_id)
                .where(
                    SyncRecord.project_id == opened.row.project_id,
                    (Item.sync_status == ItemSyncStatus.PENDING.value)
                    | SyncRecord.deleted.is_(True)
                    | SyncRecord.item_id.in_(links.items_with_waiting_comments()),
                )
            )
            queued = set(
                await uow.values(
                    select(Job.payload["itemId"].as_string()).where(  # as stored, by alias
                        Job.kind == PUSH.name, Job.state == queue.QUEUED
                    )
                )
                if waiting
                else ()
            )
        for item_id in waiting:
            if item_id not in queued:
                await self.push_one(opened, item_id)

    async def push_one(self, opened: Opened, item_id: str) -> None:
        """The item's changes, then its comments waiting (once it is there)."""
        await self._push_fields(opened, item_id)
        await comments_out.send_waiting(self._units, opened, item_id)

    async def _push_fields(self, opened: Opened, item_id: str) -> None:
        source, ctx = opened.source, opened.ctx
        for _ in range(STALE_TRIES):
            async with self._units.unit(opened, write=False) as uow:
                record = await uow.row(select(SyncRecord).where(SyncRecord.item_id == item_id))
                item = await uow.row(select(Item).where(Item.id == item_id))
                if record is None:
                    return
                if record.deleted or item is None:
                    gone = record.source_item_id
                    change = None
                else:
                    change = await outbound.change_of(uow, ctx, item, record)
                    dirty = dict(record.dirty)
                    target, tried_at = record.source_item_id, creates.tried_at(record)
            if change is None:
                if gone is not None:
                    await source.delete(gone)
                async with self._units.unit(opened) as uow:
                    await uow.execute(delete(SyncRecord).where(SyncRecord.item_id == item_id))
                    await log.write(
                        uow,
                        project_id=ctx.project_id,
                        message=f"Deleted at the source: {gone}",
                        source_id=gone,
                    )
                    await self._units.count(uow, opened, "pushed")
                outcomes.sync_change(OUT, "applied")
                return
            if target is not None and not change.changed:
                await self._in_step(opened, item_id, None, dirty, sent=frozenset())
                return
            if target is None and await self._made_before(opened, item_id, change, tried_at):
                continue  # linked to what the lost create made; what changed since goes next
            try:
                result = await (
                    source.create(change) if target is None else source.update(target, change)
                )
            except SourceStale:
                fresh = await source.read([target]) if target else []
                async with self._units.unit(opened, from_source=True) as uow:
                    for found in fresh:
                        await self._reader.apply(uow, opened, found, fire=True)
                continue
            except SourceRefused as refused:
                if refused.item is not None:  # made or written there all the same: linked
                    moved = _refusal_status(refused) is ItemSyncStatus.TRANSITION_NOTFOUND
                    sent = change.changed - {"state"} if moved else change.changed
                    await self._in_step(opened, item_id, refused.item, dirty, sent=sent)
                await self._refused(opened, item_id, refused)
                return
            except SourceNotFound:
                return
            except SourceThrottled:
                raise  # refused unserved: nothing was written there
            except SourceError:
                if target is not None:
                    await self._note_sending(opened, item_id, change)
                raise
            await self._in_step(opened, item_id, result, dirty, sent=change.changed)
            return

    async def _note_sending(self, opened: Opened, item_id: str, change: SourceChange) -> None:
        """A write whose answer was lost may have been made there: what it sent is kept, so the
        pull that reads it back does not take it for a change there over a later edit here."""
        sent = inbound.seen_fields(change.fields)
        async with self._units.unit(opened) as uow:
            await uow.execute(
                update(SyncRecord)
                .where(SyncRecord.item_id == item_id)
                .values(sending={name: sent[name] for name in change.changed if name in sent})
            )

    async def _made_before(
        self, opened: Opened, item_id: str, change: SourceChange, tried_at: datetime | None
    ) -> bool:
        """Before a create is sent: noted as sent when it never was; found there, and linked,
        when it was (its answer lost)."""
        if tried_at is None:
            async with self._units.unit(opened) as uow:
                await creates.note_tried(uow, item_id=item_id)
            return False
        found = await opened.source.find_created(change, since=tried_at - creates.SLACK)
        async with self._units.unit(opened, write=False) as uow:
            made = await creates.unlinked(
                uow, project_id=opened.ctx.project_id, item_id=item_id, found=found
            )
        if made is None:
            return False
        await self._in_step(opened, item_id, made, {}, sent=change.changed)
        return True

    async def _in_step(
        self,
        opened: Opened,
        item_id: str,
        result: SourceItem | None,
        dirty: dict[str, str],
        *,
        sent: frozenset[str],
    ) -> None:
        async with self._units.unit(opened) as uow:
            record = await uow.row(
                select(SyncRecord).where(SyncRecord.item_id == item_id).with_for_update()
            )
            if record is None:
                return
            before = dict(record)
            # A field changed again while this was sent stays dirty for the next push.
            record["dirty"] = {k: v for k, v in record.dirty.items() if dirty.get(k) != v}
            created = record.source_item_id is None
            if result is not None:
                record["source_item_id"], record["version"] = result.id, result.version
                record["seen"], record["seen_at"] = inbound.seen_of(result), result.changed_at
                record["code"] = record["message"] = record["sending"] = None
            await write_changes(uow, SyncRecord.item_id, record, before)
            if result is not None:
                values: dict[str, Any] = {"sync_at": uow.clock.now()}
                if created:
                    values["source_id"] = result.id
                await uow.execute(update(Item).where(Item.id == item_id).values(**values))
                outcomes.sync_change(OUT, "applied")
                await log.write(
                    uow,
                    project_id=opened.ctx.project_id,
                    message=f"Sent {', '.join(sorted(sent))}",
                    item_id=item_id,
                    source_id=result.id,
                )
            if not record.dirty:
                await uow.execute(
                    update(Item)
                    .where(
                        Item.id == item_id,
                        Item.sync_status.in_(
                            [s.value for s in REFUSED + (ItemSyncStatus.PENDING,)]
                        ),
                    )
                    .values(sync_status=None)
                )
            if result is not None:  # last: the project's sync row is held from here to commit
                await links.add_to_count(
                    uow, opened.ctx.project_id, "pushed", last_push_at=uow.clock.now()
                )

    async def _refused(self, opened: Opened, item_id: str, refused: SourceRefused) -> None:
        async with self._units.unit(opened) as uow:
            record = await uow.row(
                select(SyncRecord).where(SyncRecord.item_id == item_id).with_for_update()
            )
            if record is None:
                return
            before = dict(record)
            record["code"], record["message"], record["dirty"] = refused.code, refused.message, {}
            await write_changes(uow, SyncRecord.item_id, record, before)
            await uow.execute(
                update(Item)
                .where(
                    Item.id == item_id,
                    Item.sync_status.is_(None)  # in step until now (`refused.item` linked)
                    | (Item.sync_status != ItemSyncStatus.MAPPING_NOTFOUND.value),
                )
                .values(sync_status=_refusal_status(refused).value)
            )
            await self._units.count(uow, opened, "errors")
            outcomes.sync_change(OUT, "refused")
            await log.write(
                uow,
                project_id=opened.ctx.project_id,
                level=log.ERROR,
                item_id=item_id,
                source_id=record.source_item_id,
                message=f"{opened.ctx.source} refused the change: "
                f"{refused.code}: {refused.message}",
            )


def _refusal_status(refused: SourceRefused) -> ItemSyncStatus:
    if refused.code == ItemSyncStatus.TRANSITION_NOTFOUND.value:
        return ItemSyncStatus.TRANSITION_NOTFOUND
    return ItemSyncStatus.SOURCE_ERROR

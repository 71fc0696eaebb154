"""Reading a project's source: pages of changes applied here (the import, then pulls), each
conflict logged, and items gone at the source deleted here."""

from sqlalchemy import delete, select

from bot import outcomes
from bot import pending_events as events
from bot.db.tables import Item, SyncRecord, User
from bot.db.uow import UnitOfWork
from bot.directory.actors import ACTOR_COLUMNS, actor_of_row
from bot.items import read
from bot.messaging import Messenger
from bot.schemas import ItemKind, Trigger
from bot.sync import links, log
from bot.sync.engine import comments_in, inbound
from bot.sync.engine.units import IN, Opened, Units
from bot.sync.source import SourceItem


class Reader:
    def __init__(self, units: Units, messenger: Messenger) -> None:
        """`messenger` tells the items' threads the comments made at the source."""
        self._units, self._messenger = units, messenger

    async def pull(self, opened: Opened, *, importing: bool) -> None:
        row = opened.row
        cursor = row.import_cursor if importing else row.cursor
        changed = opened.source.changed_since(
            cursor, item_types=list(row.item_types.values()), query=row.query
        )
        # The first import stores the comments there; only those made later are told.
        messenger = None if importing else self._messenger
        async for page in changed:
            # Read before the page is stored: a failure reads the page's comments again.
            async with self._units.unit(opened, write=False) as uow:
                to_read = await comments_in.to_read(uow, opened.ctx, page.items)
            comments = await comments_in.read(opened.source, to_read)
            async with self._units.unit(opened, from_source=True) as uow:
                made = 0  # a resumed import reads its last page's items again: not counted twice
                for item in page.items:
                    applied = await self.apply(uow, opened, item, fire=not importing)
                    made += applied is not None and applied.created
                    if applied is not None:
                        await comments_in.store(
                            uow,
                            opened.ctx,
                            item_id=applied.item_id,
                            source_item=item,
                            comments=comments.get(item.id),
                            messenger=messenger,
                        )
                held = await self._units.row(uow, opened)
                before = dict(held)
                if importing:
                    held["import_cursor"] = page.cursor
                    log.count(held, "imported", made)
                else:
                    held["cursor"] = page.cursor
                held["last_pull_at"] = uow.clock.now()
                await links.write(uow, held, before)
        async with self._units.unit(opened) as uow:
            held = await self._units.row(uow, opened)
            before = dict(held)
            held["last_pull_at"] = uow.clock.now()
            await links.write(uow, held, before)

    async def apply(
        self, uow: UnitOfWork, opened: Opened, item: SourceItem, *, fire: bool
    ) -> inbound.Applied | None:
        uow.actor = await self._actor(uow, opened, item)
        applied = await inbound.apply(uow, opened.ctx, item)
        if applied is None:
            return None
        for line in applied.conflicts:
            await log.write(
                uow,
                project_id=opened.ctx.project_id,
                message=line,
                item_id=applied.item_id,
                source_id=item.id,
                level=log.WARNING,
            )
        changed = bool(applied.created or applied.changes)
        outcomes.sync_change(IN, "conflict", len(applied.conflicts))
        if changed:
            outcomes.sync_change(IN, "applied" if fire else "imported")
        pulled = fire and changed
        if not applied.conflicts and not pulled:
            return applied  # nothing to count: the sync row is not locked per imported item
        held = await self._units.row(uow, opened)
        before = dict(held)
        log.count(held, "conflicts", len(applied.conflicts))
        if pulled:
            log.count(held, "pulled")
        await links.write(uow, held, before)
        if pulled:
            await inbound.fire(uow, applied)
        return applied

    async def _actor(self, uow: UnitOfWork, opened: Opened, item: SourceItem):  # noqa: ANN202
        person = item.changed_by
        member = opened.ctx.people.match(person) if person else None
        if member is None:
            return None
        await opened.ctx.people.keep(uow)
        found = await uow.row(select(*ACTOR_COLUMNS).where(User.id == member.user_id))
        return actor_of_row(found) if found else None

    async def deletions(self, opened: Opened) -> None:
        row = opened.row
        there = await opened.source.ids_in_scope(
            item_types=list(row.item_types.values()), query=row.query
        )
        async with self._units.unit(opened, from_source=True) as uow:
            records = await uow.rows(
                select(SyncRecord.item_id, SyncRecord.source_item_id).where(
                    SyncRecord.project_id == row.project_id,
                    SyncRecord.source_item_id.is_not(None),
                    SyncRecord.deleted.is_(False),
                )
            )
            for record in records:
                if record.source_item_id in there:
                    continue
                kind = await uow.value(select(Item.kind).where(Item.id == record.item_id))
                if kind is not None:
                    shown = await read.get_details(uow, kind=ItemKind(kind), item_id=record.item_id)
                    await uow.execute(delete(Item).where(Item.id == record.item_id))
                    await events.record(
                        uow,
                        kind=ItemKind(kind),
                        trigger=Trigger.ITEM_DELETED,
                        payloads={record.item_id: {"item": shown}},
                    )
                await log.write(
                    uow,
                    project_id=row.project_id,
                    message=f"Deleted here: {record.source_item_id} is gone at the source",
                    item_id=record.item_id,
                    source_id=record.source_item_id,
                )
                outcomes.sync_change(IN, "applied")
                await uow.execute(delete(SyncRecord).where(SyncRecord.item_id == record.item_id))

"""Reading a project's source: pages of changes applied here (the import, then pulls), each
conflict logged, and items gone at the source deleted here."""

from collections.abc import Sequence

from sqlalchemy import delete, select

from bot import outcomes
from bot import pending_events as events
from bot.db.statements import Row
from bot.db.tables import Item, SyncRecord, User
from bot.db.uow import UnitOfWork
from bot.directory.actors import ACTOR_COLUMNS, actor_of_row
from bot.items import read
from bot.messaging import Messenger
from bot.schemas import ItemKind, Trigger
from bot.sync import links, log
from bot.sync.engine import comments_in, creates, inbound
from bot.sync.engine.units import IN, Opened, Units
from bot.sync.source import SourceItem

# A page item read again because a push stored its write meanwhile, at most this often.
REREADS = 2


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
        async with self._units.unit(opened, write=False) as uow:
            pushed = _pushes(await links.sync_row(uow, row.project_id))
        async for page in changed:
            # Read before the page is stored: a failure reads the page's comments again.
            async with self._units.unit(opened, write=False) as uow:
                to_read = await comments_in.to_read(uow, opened.ctx, page.items)
            comments = await comments_in.read(opened.source, to_read)
            items: Sequence[SourceItem] = page.items
            for rereads_left in range(REREADS, -1, -1):
                async with self._units.unit(opened, from_source=True) as uow:
                    applied, older = await self._apply_page(
                        uow,
                        opened,
                        items,
                        fire=not importing,
                        pushed=pushed if rereads_left else None,
                    )
                    for item, done in applied:
                        await comments_in.store(
                            uow,
                            opened.ctx,
                            item_id=done.item_id,
                            source_item=item,
                            comments=comments.get(item.id),
                            messenger=messenger,
                        )
                    # A resumed import reads its last page's items again: not counted twice.
                    made = sum(done.created for _, done in applied)
                    held = await self._units.row(uow, opened)
                    before = dict(held)
                    if importing:
                        held["import_cursor"] = page.cursor
                        log.count(held, "imported", made)
                    else:
                        held["cursor"] = page.cursor
                    held["last_pull_at"] = uow.clock.now()
                    await links.write(uow, held, before)
                    pushed = _pushes(held)
                if not older:
                    break
                # Read there before a push wrote them, and stored after it: read again.
                items = await opened.source.read([item.id for item in older])
        async with self._units.unit(opened) as uow:
            held = await self._units.row(uow, opened)
            before = dict(held)
            held["last_pull_at"] = uow.clock.now()
            await links.write(uow, held, before)

    async def _apply_page(
        self,
        uow: UnitOfWork,
        opened: Opened,
        items: Sequence[SourceItem],
        *,
        fire: bool,
        pushed: int | None,
    ) -> tuple[list[tuple[SourceItem, inbound.Applied]], list[SourceItem]]:
        """A page applied set-based: its records read in one select, the items new here written
        together (`inbound.create_many`), those known updated one by one (a pull's few). With
        them, the items not applied: the project's pushes moved past `pushed` (None: no matter)
        while the page was read, and their records hold another version than the page's (a
        push may have stored its write of them after the page was read there)."""
        ctx = opened.ctx
        synced = [item for item in items if item.item_type in ctx.kinds]
        known = await inbound.known(uow, ctx, synced)  # held: a push stores its write after this
        held = await links.sync_row(uow, ctx.project_id)
        pushed_meanwhile = pushed is not None and _pushes(held) != pushed
        lost = await creates.any_lost(uow, project_id=ctx.project_id)
        applied: list[tuple[SourceItem, inbound.Applied]] = []
        older: list[SourceItem] = []
        new: dict[str, SourceItem] = {}  # by id: an item listed twice is made once, as last read
        for item in synced:
            record = known.get(item.id)
            if item.id in new:
                new[item.id] = item
            elif pushed_meanwhile and record is not None and record.version != item.version:
                older.append(item)
            elif item.id in known or lost:
                done = await self.apply(uow, opened, item, fire=fire, record=record)
                if done is not None:
                    applied.append((item, done))
            else:
                new[item.id] = item
        created = await inbound.create_many(uow, ctx, list(new.values()))
        outcomes.sync_change(IN, "applied" if fire else "imported", len(created))
        if fire and created:
            await self._units.count(uow, opened, "pulled", len(created))
        for item, done in zip(new.values(), created, strict=True):
            if fire:
                uow.actor = await self._actor(uow, opened, item)
                await inbound.fire(uow, done)
            applied.append((item, done))
        return applied, older

    async def apply(
        self,
        uow: UnitOfWork,
        opened: Opened,
        item: SourceItem,
        *,
        fire: bool,
        record: Row | None = None,
    ) -> inbound.Applied | None:
        """One item applied and its conflicts logged; `record`, its sync record when read
        already (else it is looked up)."""
        uow.actor = await self._actor(uow, opened, item)
        applied = await (
            inbound.apply_known(uow, opened.ctx, item, record)
            if record is not None
            else inbound.apply(uow, opened.ctx, item)
        )
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


def _pushes(sync_row: Row | None) -> int:
    """How many changes the project has sent: a push stores its write and counts it together."""
    return int(sync_row.counts.get("pushed", 0)) if sync_row is not None else 0

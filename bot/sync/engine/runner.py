"""The engine's jobs: link (hooks, then the first import), poll (send what waits, read what
changed, look for deletions), push (one item's changes). What a source's failure does is
decided once, in `_failed`: 401/403 pauses the project, the rest is retried later."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update

from bot import outcomes
from bot.clock import Clock
from bot.db.tables import Item, Job, Project, ProjectSync, SyncRecord, User
from bot.db.uow import UnitOfWork, unit_of_work
from bot.directory.actors import ACTOR_COLUMNS, actor_of_row
from bot.directory.channel_scope import scope_of_channel
from bot.items import events, read
from bot.jobs import queue
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import NotNow, RetryLater, Worker
from bot.messaging import Messenger
from bot.projects.service import held_secrets
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind, Trigger
from bot.sync import links, log
from bot.sync.connectors import Connectors, Link
from bot.sync.engine import context, creates, inbound, outbound, paused
from bot.sync.engine.kinds import LINK, POLL, PUSH, ItemJob, ProjectJob, poll_at
from bot.sync.schemas import ItemSyncStatus, SyncState
from bot.sync.source import (
    Source,
    SourceChange,
    SourceError,
    SourceItem,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceUnauthorized,
)
from bot.timestamps import format_timestamp

# The directions of `sync_changes_total` (/metrics): from the source, and to it.
IN, OUT = "in", "out"
STALE_TRIES = 3  # a write whose guard fails is pulled and tried again, this many times in all


@dataclass
class Opened:
    row: ProjectSync  # a snapshot, read apart from the unit that writes it
    ctx: context.ProjectContext
    source: Source


class SyncEngine:
    def __init__(
        self,
        sessions,
        clock: Clock,
        connectors: Connectors,
        *,
        secret_key: str,
        public_url: str,  # noqa: ANN001
        messenger: Messenger,
    ) -> None:
        """`messenger` tells a channel its project's sync paused."""
        self._sessions, self._clock, self._connectors = sessions, clock, connectors
        self._messenger = messenger
        self._secret_key, self._public_url = secret_key, public_url.rstrip("/")

    def register(self, worker: Worker) -> None:
        worker.register(LINK, self.link)
        worker.register(POLL, self.poll)
        worker.register(PUSH, self.push)

    # Jobs

    async def link(self, job: ClaimedJob[ProjectJob]) -> None:
        opened = await self._open(job.payload.project_id)
        if opened is None:
            return
        importing = not opened.row.imported
        try:
            if not await self._hooks(opened):
                return
            if importing:
                await self._pull(opened, importing=True)
        except (SourceError, SourceUnauthorized) as exc:
            await self._failed(opened, exc, retry=RetryLater, direction=IN)
            return
        async with self._unit(opened) as uow:
            row = await self._row(uow, opened)
            row.imported, row.state = True, SyncState.RUNNING.value
            row.cursor = row.cursor or row.import_cursor
            # Linked again (sync back on): what changed meanwhile is read now.
            after = timedelta(seconds=row.interval_seconds if importing else 0)
            await poll_at(uow, project_id=row.project_id, run_at=uow.clock.now() + after)

    async def poll(self, job: ClaimedJob[ProjectJob]) -> None:
        opened = await self._open(job.payload.project_id)
        if opened is None or not opened.row.imported:
            return  # off, paused or still importing: saving or the link puts the poller back
        direction = OUT
        try:
            await self._push_pending(opened)
            if opened.row.direction != "out":
                direction = IN
                await self._pull(opened, importing=False)
                if opened.row.polls % 2 == 1:
                    await self._deletions(opened)
        except (SourceError, SourceUnauthorized) as exc:
            await self._failed(opened, exc, retry=NotNow, direction=direction)
            return
        async with self._unit(opened) as uow:
            row = await self._row(uow, opened)
            row.polls += 1
            if row.state == SyncState.FAILING:
                row.state, row.last_error = SyncState.RUNNING.value, None
            asked_meanwhile = row.asked != opened.row.asked  # a hook came while this ran
        after = 0 if asked_meanwhile else opened.row.interval_seconds
        raise NotNow("next poll", after=timedelta(seconds=after))

    async def push(self, job: ClaimedJob[ItemJob]) -> None:
        opened = await self._open(job.payload.project_id)
        if opened is None:
            return  # paused or off: the item stays pending; the poll after resuming sends it
        try:
            await self._push_one(opened, job.payload.item_id)
        except (SourceError, SourceUnauthorized) as exc:
            await self._failed(opened, exc, retry=RetryLater, direction=OUT)

    # Reading

    async def _pull(self, opened: Opened, *, importing: bool) -> None:
        row = opened.row
        cursor = row.import_cursor if importing else row.cursor
        changed = opened.source.changed_since(
            cursor, item_types=list(row.item_types.values()), query=row.query
        )
        async for page in changed:
            async with self._unit(opened, from_source=True) as uow:
                made = 0  # a resumed import reads its last page's items again: not counted twice
                for item in page.items:
                    applied = await self._apply(uow, opened, item, fire=not importing)
                    made += applied is not None and applied.created
                held = await self._row(uow, opened)
                if importing:
                    held.import_cursor = page.cursor
                    log.count(held, "imported", made)
                else:
                    held.cursor = page.cursor
                held.last_pull_at = uow.clock.now()
        async with self._unit(opened) as uow:
            held = await self._row(uow, opened)
            held.last_pull_at = uow.clock.now()

    async def _apply(
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
        held = await self._row(uow, opened)
        log.count(held, "conflicts", len(applied.conflicts))
        if pulled:
            log.count(held, "pulled")
            await inbound.fire(uow, applied)
        return applied

    async def _actor(self, uow: UnitOfWork, opened: Opened, item: SourceItem):  # noqa: ANN202
        person = item.changed_by
        member = opened.ctx.members.get(context.fold(person.email or "")) if person else None
        if member is None:
            return None
        found = await uow.row(select(*ACTOR_COLUMNS).where(User.id == member[0]))
        return actor_of_row(found) if found else None

    async def _deletions(self, opened: Opened) -> None:
        row = opened.row
        there = await opened.source.ids_in_scope(
            item_types=list(row.item_types.values()), query=row.query
        )
        async with self._unit(opened, from_source=True) as uow:
            records = await uow.entities(
                select(SyncRecord).where(
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
                await uow.delete(record)

    # Sending

    async def _push_pending(self, opened: Opened) -> None:
        """Send what waits with no push job of its own to send it (left while paused): an item
        is sent by one job at a time, never by its job and the poll together."""
        async with self._unit(opened, write=False) as uow:
            waiting = await uow.values(
                select(SyncRecord.item_id)
                .outerjoin(Item, Item.id == SyncRecord.item_id)
                .where(
                    SyncRecord.project_id == opened.row.project_id,
                    (Item.sync_status == ItemSyncStatus.PENDING.value)
                    | SyncRecord.deleted.is_(True),
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
                await self._push_one(opened, item_id)

    async def _push_one(self, opened: Opened, item_id: str) -> None:
        source, ctx = opened.source, opened.ctx
        for _ in range(STALE_TRIES):
            async with self._unit(opened, write=False) as uow:
                record = await uow.entity(select(SyncRecord).where(SyncRecord.item_id == item_id))
                item = await uow.entity(select(Item).where(Item.id == item_id))
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
                async with self._unit(opened) as uow:
                    await uow.execute(delete(SyncRecord).where(SyncRecord.item_id == item_id))
                    await log.write(
                        uow,
                        project_id=ctx.project_id,
                        message=f"Deleted at the source: {gone}",
                        source_id=gone,
                    )
                    log.count(await self._row(uow, opened), "pushed")
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
                async with self._unit(opened, from_source=True) as uow:
                    for found in fresh:
                        await self._apply(uow, opened, found, fire=True)
                continue
            except SourceRefused as refused:
                await self._refused(opened, item_id, refused)
                return
            except SourceNotFound:
                return
            await self._in_step(opened, item_id, result, dirty, sent=change.changed)
            return

    async def _made_before(
        self, opened: Opened, item_id: str, change: SourceChange, tried_at: datetime | None
    ) -> bool:
        """Before a create is sent: noted as sent when it never was; found there, and linked,
        when it was (its answer lost)."""
        if tried_at is None:
            async with self._unit(opened) as uow:
                await creates.note_tried(uow, item_id=item_id)
            return False
        found = await opened.source.find_created(change, since=tried_at - creates.SLACK)
        async with self._unit(opened, write=False) as uow:
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
        async with self._unit(opened) as uow:
            record = await uow.entity(
                select(SyncRecord).where(SyncRecord.item_id == item_id).with_for_update()
            )
            if record is None:
                return
            # A field changed again while this was sent stays dirty for the next push.
            record.dirty = {k: v for k, v in record.dirty.items() if dirty.get(k) != v}
            if result is not None:
                created = record.source_item_id is None
                record.source_item_id, record.version = result.id, result.version
                record.seen, record.seen_at = inbound.seen_of(result), result.changed_at
                record.code = record.message = None
                values: dict[str, Any] = {"sync_at": uow.clock.now()}
                if created:
                    values["source_id"] = result.id
                await uow.execute(update(Item).where(Item.id == item_id).values(**values))
                held = await self._row(uow, opened)
                held.last_push_at = uow.clock.now()
                log.count(held, "pushed")
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
                            [ItemSyncStatus.PENDING.value, ItemSyncStatus.SOURCE_ERROR.value]
                        ),
                    )
                    .values(sync_status=None)
                )

    async def _refused(self, opened: Opened, item_id: str, refused: SourceRefused) -> None:
        async with self._unit(opened) as uow:
            record = await uow.entity(
                select(SyncRecord).where(SyncRecord.item_id == item_id).with_for_update()
            )
            if record is None:
                return
            record.code, record.message, record.dirty = refused.code, refused.message, {}
            await uow.execute(
                update(Item)
                .where(
                    Item.id == item_id, Item.sync_status != ItemSyncStatus.MAPPING_NOTFOUND.value
                )
                .values(sync_status=ItemSyncStatus.SOURCE_ERROR.value)
            )
            log.count(await self._row(uow, opened), "errors")
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

    async def _hooks(self, opened: Opened) -> bool:
        """The source's hooks, made once; False when sync was switched off (or the project
        deleted) while they were being made: they are removed again."""
        row = opened.row
        if opened.ctx.source not in links.HOOKED or row.hook_ids:
            return True
        secret = links.hook_secret(row, self._secret_key)
        if secret is None or not self._public_url:
            return True
        url = f"{self._public_url}/api/sync/hooks/{row.project_id}"
        made = await opened.source.register_hooks(url, secret)
        async with self._unit(opened) as uow:
            held = await links.sync_row(uow, row.project_id, for_update=True)
            still_on = held is not None and held.enabled
            if held is not None and still_on:
                held.hook_ids = list(made.ids)
                if made.problem:
                    await log.write(
                        uow,
                        project_id=row.project_id,
                        level=log.WARNING,
                        message=f"No hooks at the source ({made.problem}); polling carries on",
                    )
        if not still_on:
            await opened.source.remove_hooks(made.ids)
        return still_on

    # Failures

    async def _failed(
        self,
        opened: Opened,
        exc: Exception,
        *,
        retry: Callable[..., Exception],
        direction: str,
    ) -> None:
        outcomes.sync_change(direction, "failed")
        now = self._clock.now()
        async with self._unit(opened) as uow:
            row = await self._row(uow, opened)
            if isinstance(exc, SourceUnauthorized):
                await paused.pause(uow, row, reason=exc.message, messenger=self._messenger)
                return
            assert isinstance(exc, SourceError)
            row.state = SyncState.FAILING.value
            row.last_error = {
                "code": type(exc).__name__,
                "message": exc.message,
                "at": format_timestamp(now),
            }
            log.count(row, "errors")
            await log.write(
                uow,
                project_id=row.project_id,
                level=log.WARNING,
                message=f"{opened.ctx.source} failed; retried later: {exc.message}",
            )
            after = timedelta(seconds=exc.retry_after or min(row.interval_seconds, 60))
        raise retry(exc.message, after=after)

    # Units

    async def _open(self, project_id: str) -> Opened | None:
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            project = await uow.entity(select(Project).where(Project.id == project_id))
            row = await links.sync_row(uow, project_id)
            if project is None or row is None or not row.enabled or not project.enable:
                return None
            if row.state == SyncState.PAUSED:
                return None
            ctx = await context.load(uow, project, row)
            secrets = held_secrets(self._secret_key, project)
        link = Link(
            kind=SourceKind(project.source),
            hostname=project.hostname,
            source_id=project.source_id,
            secrets=secrets,
        )
        return Opened(row=row, ctx=ctx, source=self._connectors.open(link))

    @asynccontextmanager
    async def _unit(
        self, opened: Opened, *, write: bool = True, from_source: bool = False
    ) -> AsyncIterator[UnitOfWork]:
        async with unit_of_work(self._sessions, self._clock, write=write) as uow:
            uow.from_source = from_source
            uow.channel = await scope_of_channel(uow, channel_id=opened.ctx.channel_id)
            yield uow

    async def _row(self, uow: UnitOfWork, opened: Opened) -> ProjectSync:
        row = await links.sync_row(uow, opened.row.project_id, for_update=True)
        assert row is not None, "a project's sync row lives as long as the project"
        return row

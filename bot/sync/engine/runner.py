"""The engine's jobs: link (hooks, then the first import), poll (send what waits, read what
changed, look for deletions), push (one item's changes). What a source's failure does is
decided once, in `_failed`: 401/403 pauses the project, the rest is retried later."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select

from bot import outcomes
from bot.clock import Clock
from bot.db.tables import Project
from bot.db.uow import UnitOfWork
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import NotNow, RetryLater, Worker
from bot.messaging import Messenger
from bot.sync import checks, links, log, states
from bot.sync.connectors import Connectors
from bot.sync.engine import paused
from bot.sync.engine.comments_shown import CommentsShown
from bot.sync.engine.kinds import LINK, POLL, ProjectJob, poll_at
from bot.sync.engine.reading import Reader
from bot.sync.engine.sending import Sender
from bot.sync.engine.units import IN, OUT, Opened, Units
from bot.sync.source import SourceError, SourceRefused, SourceUnauthorized
from bot.sync_records.outbox import PUSH, ItemJob
from bot.sync_records.schemas import SyncState
from bot.timestamps import format_timestamp


@dataclass(frozen=True, slots=True)
class _Opened:
    """What a push job's claim read: its project opened (None: gone, off or paused)."""

    opened: Opened | None


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
        """`messenger` tells a channel its project's sync paused, and an item's thread the
        comments made at its source."""
        self._clock, self._messenger = clock, messenger
        self._secret_key, self._public_url = secret_key, public_url.rstrip("/")
        self._units = Units(sessions, clock, connectors, secret_key=secret_key)
        self._reader = Reader(self._units, messenger)
        self._sender = Sender(self._units, self._reader)
        self._comments_shown = CommentsShown(sessions, clock, messenger)

    def register(self, worker: Worker) -> None:
        worker.register(LINK, self.link)
        worker.register(POLL, self.poll)
        worker.register(PUSH, self.push, read=self._open_projects)
        self._comments_shown.register(worker)

    # Jobs

    async def link(self, job: ClaimedJob[ProjectJob]) -> None:
        opened = await self._units.open(job.payload.project_id)
        if opened is None:
            return
        importing = not opened.row.imported
        try:
            if not await self._hooks(opened):
                return
            if importing:
                await self._reader.pull(opened, importing=True)
        except (SourceError, SourceUnauthorized, SourceRefused) as exc:
            await self._failed(opened, exc, retry=RetryLater, direction=IN)
            return
        async with self._units.unit(opened) as uow:
            row = await self._units.row(uow, opened)
            before = dict(row)
            row["imported"], row["state"], row["last_error"] = True, SyncState.RUNNING.value, None
            row["cursor"] = row.cursor or row.import_cursor
            await links.write(uow, row, before)
            # Linked again (sync back on): what changed meanwhile is read now.
            after = timedelta(seconds=row.interval_seconds if importing else 0)
            await poll_at(uow, project_id=row.project_id, run_at=uow.clock.now() + after)

    async def poll(self, job: ClaimedJob[ProjectJob]) -> None:
        opened = await self._units.open(job.payload.project_id)
        if opened is None or not opened.row.imported:
            return  # off, paused or still importing: saving or the link puts the poller back
        started = self._clock.now()
        direction = OUT
        try:
            await self._sender.push_pending(opened)
            if opened.row.direction != "out":
                direction = IN
                await self._reader.pull(opened, importing=False)
                if opened.row.polls % 2 == 1:
                    await self._reader.deletions(opened)
            if opened.ctx.source.brings_states and states.due(opened.row, self._clock.now()):
                await self._read_states(opened)
        except (SourceError, SourceUnauthorized, SourceRefused) as exc:
            await self._failed(opened, exc, retry=NotNow, direction=direction)
            return
        async with self._units.unit(opened) as uow:
            row = await self._units.row(uow, opened)
            before = dict(row)
            row["polls"] += 1
            if row.state == SyncState.FAILING:
                row["state"], row["last_error"] = SyncState.RUNNING.value, None
            await links.write(uow, row, before)
            asked_meanwhile = row.asked != opened.row.asked  # a hook came while this ran
            await log.trim(uow, project_id=row.project_id)
        # Polls start every `intervalSeconds` (sync.md bounds a change's wait by it), however
        # long this one took.
        spent = self._clock.now() - started
        after = timedelta(seconds=0 if asked_meanwhile else opened.row.interval_seconds) - spent
        raise NotNow("next poll", after=max(after, timedelta(0)))

    async def _open_projects(
        self, uow: UnitOfWork, jobs: list[ClaimedJob[ItemJob]]
    ) -> list[_Opened]:
        """The projects of the push jobs being claimed, each opened once for the batch (its
        reads are most of a push's own work), in the claim's transaction."""
        opened: dict[str, Opened | None] = {}
        for job in jobs:
            project_id = job.payload.project_id
            if project_id not in opened:
                opened[project_id] = await self._units.open_in(uow, project_id)
        return [_Opened(opened[job.payload.project_id]) for job in jobs]

    async def push(self, job: ClaimedJob[ItemJob]) -> None:
        if isinstance(job.read, _Opened):
            opened = job.read.opened
        else:  # not claimed by a worker (run directly): opened now
            opened = await self._units.open(job.payload.project_id)
        if opened is None:
            return  # paused or off: the item stays pending; the poll after resuming sends it
        try:
            await self._sender.push_one(opened, job.payload.item_id)
        except (SourceError, SourceUnauthorized) as exc:
            await self._failed(opened, exc, retry=RetryLater, direction=OUT)

    async def _read_states(self, opened: Opened) -> None:
        """The source's states, read again (at least daily; new ones arrive unmapped)."""
        try:
            read = await checks.read_states(opened.source, list(opened.row.item_types.values()))
        except checks.MissingType as missing:
            read, lacking = None, str(missing)
        async with self._units.unit(opened) as uow:
            project = await uow.row(
                select(Project).where(Project.id == opened.row.project_id).with_for_update()
            )
            if project is None:
                return  # deleted meanwhile
            row = await self._units.row(uow, opened)
            if read is not None:
                await states.keep(
                    uow, project=project, row=row, states=read, messenger=self._messenger
                )
                return
            before = dict(row)
            row["states_read_at"] = uow.clock.now()  # said once a day, not at every poll
            await links.write(uow, row, before)
            await log.write(
                uow,
                project_id=row.project_id,
                level=log.WARNING,
                message=f"No type '{lacking}' at {project.source} any more: its states were not "
                "read. Change the project's itemTypes.",
            )

    # Hooks

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
        async with self._units.unit(opened) as uow:
            held = await links.sync_row(uow, row.project_id, for_update=True)
            still_on = held is not None and held.enabled
            if held is not None and still_on:
                before = dict(held)
                held["hook_ids"] = list(made.ids)
                await links.write(uow, held, before)
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
        async with self._units.unit(opened) as uow:
            row = await self._units.row(uow, opened)
            if isinstance(exc, SourceUnauthorized):
                await paused.pause(uow, row, reason=exc.message, messenger=self._messenger)
                return
            if isinstance(exc, SourceRefused):  # a read it will not answer: the query, say
                code, wait = exc.code, None
                said = (
                    f"{opened.ctx.source} refused to list the project's items: {exc.message}. "
                    "Check the project's sync query and item types; retried later"
                )
            else:
                assert isinstance(exc, SourceError)
                code, wait = type(exc).__name__, exc.retry_after
                said = f"{opened.ctx.source} failed; retried later: {exc.message}"
            before = dict(row)
            row["state"] = SyncState.FAILING.value
            row["last_error"] = {"code": code, "message": exc.message, "at": format_timestamp(now)}
            log.count(row, "errors")
            await links.write(uow, row, before)
            await log.write(uow, project_id=row.project_id, level=log.WARNING, message=said)
            after = timedelta(seconds=wait or min(row.interval_seconds, 60))
        raise retry(exc.message, after=after)

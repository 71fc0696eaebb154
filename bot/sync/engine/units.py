"""What every sync job works through: the project opened (its sync row as read, its context,
its source) and the units of work scoped to its channel."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import select

from bot.clock import Clock
from bot.db.statements import Row
from bot.db.tables import Project
from bot.db.uow import ChannelScope, UnitOfWork, unit_of_work
from bot.directory.channel_scope import scope_of_channel
from bot.jobs.worker import PermanentFailure
from bot.projects.service import held_secrets
from bot.projects.sources import SourceKind
from bot.sync import links
from bot.sync.connectors import Connectors, Link
from bot.sync.engine import context
from bot.sync.source import Source
from bot.sync_records.schemas import SyncState

# The directions of `sync_changes_total` (/metrics): from the source, and to it.
IN, OUT = "in", "out"


@dataclass
class Opened:
    row: Row  # a snapshot, read apart from the unit that writes it
    ctx: context.ProjectContext
    source: Source
    scope: ChannelScope  # the channel's, which every unit of the project's work acts in


class Units:
    """Opens a project for a job and scopes its units of work to the project's channel."""

    def __init__(
        self,
        sessions,  # noqa: ANN001
        clock: Clock,
        connectors: Connectors,
        *,
        secret_key: str,
    ) -> None:
        self._sessions, self._clock, self._connectors = sessions, clock, connectors
        self._secret_key = secret_key

    async def open(self, project_id: str) -> Opened | None:
        """The project opened for a job; None when it is gone, off or paused."""
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            return await self.open_in(uow, project_id)

    async def open_in(self, uow: UnitOfWork, project_id: str) -> Opened | None:
        """`open`, read in a unit of the caller's (the claim of a batch of jobs)."""
        project = await uow.row(select(Project).where(Project.id == project_id))
        row = await links.sync_row(uow, project_id)
        if project is None or row is None or not row.enabled or not project.enable:
            return None
        if row.state == SyncState.PAUSED:
            return None
        try:
            scope = await scope_of_channel(uow, channel_id=project.channel_id)
        except PermanentFailure:
            return None  # the channel is being removed, its projects with it
        ctx = await context.load(uow, project, row)
        secrets = held_secrets(self._secret_key, project)
        link = Link(
            kind=SourceKind(project.source),
            hostname=project.hostname,
            source_id=project.source_id,
            secrets=secrets,
            query=row.query,
        )
        return Opened(row=row, ctx=ctx, source=self._connectors.open(link), scope=scope)

    @asynccontextmanager
    async def unit(
        self, opened: Opened, *, write: bool = True, from_source: bool = False
    ) -> AsyncIterator[UnitOfWork]:
        async with unit_of_work(self._sessions, self._clock, write=write) as uow:
            uow.from_source = from_source
            uow.channel = opened.scope
            yield uow

    async def row(self, uow: UnitOfWork, opened: Opened) -> Row:
        """The project's sync row, read again and held for update (`links.write` stores what
        changes in it)."""
        row = await links.sync_row(uow, opened.row.project_id, for_update=True)
        assert row is not None, "a project's sync row lives as long as the project"
        return row

    async def count(self, uow: UnitOfWork, opened: Opened, name: str, by: int = 1) -> None:
        """Add to one of the project's counts, its sync row not read first
        (`links.add_to_count`)."""
        if by:
            await links.add_to_count(uow, opened.row.project_id, name, by)

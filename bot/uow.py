"""The unit of work every service takes first: one transaction, the clock, who and where."""

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.engine import take_sqlite_write_lock


@dataclass(frozen=True, slots=True)
class Actor:
    """The signed-in user a request or command acts for."""

    user_id: str
    source_id: str
    username: str
    display_name: str
    email: str | None
    source: str


@dataclass(frozen=True, slots=True)
class ChannelScope:
    """The team and channel a request acts in, already checked for membership."""

    team_id: str
    teams_team_id: str
    channel_id: str
    teams_channel_id: str
    group_id: str | None
    tenant_id: str | None


class VersionedCache(Protocol):
    """A process-wide cache of what lists compute (bot.items.versions.VersionedCache)."""

    def get(self, key: tuple[str, ...], version: int) -> Any | None: ...

    def put(self, key: tuple[str, ...], version: int, value: Any) -> None: ...


@dataclass(slots=True)
class UnitOfWork:
    session: AsyncSession
    clock: Clock
    actor: Actor | None = None
    channel: ChannelScope | None = None
    cache: VersionedCache | None = None


_sqlite_writers: WeakKeyDictionary[Engine | Connection, asyncio.Lock] = WeakKeyDictionary()


@asynccontextmanager
async def unit_of_work(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    *,
    write: bool = True,
    cache: VersionedCache | None = None,
) -> AsyncIterator[UnitOfWork]:
    """One transaction: committed when the block ends normally, rolled back on any exception."""
    async with sessions() as session, AsyncExitStack() as stack:
        bind = session.get_bind()
        sqlite_write = write and bind.dialect.name == "sqlite"
        if sqlite_write:
            # Writers queue here, one at a time per engine: SQLite's own busy handler sleeps up
            # to 100 ms a turn, which stretches a short queue of writers into seconds.
            await stack.enter_async_context(_sqlite_writers.setdefault(bind, asyncio.Lock()))
        await stack.enter_async_context(session.begin())
        if sqlite_write:
            # Take SQLite's write lock up front: a read transaction that later writes fails at
            # once (SQLITE_BUSY, no waiting) when another writer went first.
            await take_sqlite_write_lock(session)
        yield UnitOfWork(session=session, clock=clock, cache=cache)

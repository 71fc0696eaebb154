"""The unit of work every service takes first: one transaction, the clock, who and where."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Engine, Executable
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.util import greenlet_spawn

from bot.clock import Clock
from bot.db.engine import take_sqlite_write_lock
from bot.db.reads import Reads, TransactionReads, reads_outside_transactions
from bot.db.timeouts import timed_out
from bot.errors import QueryTooLong


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


class UnitOfWork:
    """What a service acts through: the ORM session of its transaction (opened on first use),
    the reads on the driver (`bot.db.reads`), the clock, who and where."""

    __slots__ = (
        "_session",
        "_sessions",
        "_write_apart",
        "actor",
        "cache",
        "channel",
        "clock",
        "reads",
    )

    def __init__(
        self,
        *,
        clock: Clock,
        reads: Reads,
        sessions: Callable[[], AsyncSession],
        cache: VersionedCache | None = None,
        write_apart: Callable[[Executable], Awaitable[None]] | None = None,
    ) -> None:
        self.clock = clock
        self.reads = reads
        self.cache = cache
        self.actor: Actor | None = None
        self.channel: ChannelScope | None = None
        self._session: AsyncSession | None = None
        self._sessions = sessions
        self._write_apart = write_apart

    async def write_apart(self, statement: Executable) -> None:
        """A small write a read makes on the side (a session's sliding expiry): in a unit that
        only reads, a transaction of its own, committed at once and queued with the other
        writers; in a writing unit, part of its transaction."""
        if self._write_apart is None:
            await self.session.execute(statement)
        else:
            await self._write_apart(statement)

    @property
    def session(self) -> AsyncSession:
        if self._session is None:
            self._session = self._sessions()  # begins at its first statement
        return self._session

    @property
    def opened(self) -> AsyncSession | None:
        """The session, if one was opened."""
        return self._session


_sqlite_writers: WeakKeyDictionary[Engine, asyncio.Lock] = WeakKeyDictionary()


@asynccontextmanager
async def unit_of_work(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    *,
    write: bool = True,
    cache: VersionedCache | None = None,
) -> AsyncIterator[UnitOfWork]:
    """One transaction: committed when the block ends normally, rolled back on any exception.
    A unit that only reads (`write=False`) reads outside any transaction, on a connection of
    its own or, on SQLite, one all such units share (`bot.db.reads`). Either opens an ORM
    session only if something asks for one: most requests' statements run on the driver, and a
    session's life cost a create more than its writes. A statement the database stopped for
    running too long ends the unit with `QueryTooLong`, its transaction rolled back."""
    try:
        async with _unit(sessions, clock, write=write, cache=cache) as uow:
            yield uow
    except Exception as error:
        if timed_out(error):
            raise QueryTooLong() from error
        raise


@asynccontextmanager
async def _unit(
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    *,
    write: bool,
    cache: VersionedCache | None,
) -> AsyncIterator[UnitOfWork]:
    engine: AsyncEngine = sessions.kw["bind"]
    if not write:
        async with _reading(engine, sessions, clock, cache) as uow:
            yield uow
        return
    sqlite = engine.dialect.name == "sqlite"
    async with AsyncExitStack() as stack:
        if sqlite:
            # Writers queue here, one at a time per engine: SQLite's own busy handler sleeps up
            # to 100 ms a turn, which stretches a short queue of writers into seconds.
            lock = _sqlite_writers.setdefault(engine.sync_engine, asyncio.Lock())
            await stack.enter_async_context(lock)
        connection, driver = await stack.enter_async_context(_transaction(engine))
        reads = TransactionReads(connection, driver)
        if sqlite:
            # Take SQLite's write lock up front: a read transaction that later writes fails at
            # once (SQLITE_BUSY, no waiting) when another writer went first.
            await take_sqlite_write_lock(reads)
        # A session joins the unit's transaction; only rolling back reaches it (the unit's own
        # end commits it), so its commit flushes what it holds and nothing more.
        joined = partial(sessions, bind=connection, join_transaction_mode="rollback_only")
        async with _ending_session(
            UnitOfWork(clock=clock, cache=cache, reads=reads, sessions=joined)
        ) as uow:
            yield uow


@asynccontextmanager
async def _transaction(engine: AsyncEngine) -> AsyncIterator[tuple[AsyncConnection, Any]]:
    """A connection in a transaction, with its driver connection; committed when the block ends
    normally, rolled back on any exception. Begun in one greenlet and ended in another: each of
    SQLAlchemy's async calls (connect, begin, the raw connection, commit, close) spawns its own,
    and a new greenlet's first frame costs Python 3.11 a fresh 16 KiB stack mapping (an mmap, a
    munmap, page faults), some 9 µs: five of them were a twentieth of a SQLite create."""
    connection, driver = await greenlet_spawn(_begun_connection, engine.sync_engine)
    try:
        yield AsyncConnection(engine, connection), driver
    except BaseException:
        await greenlet_spawn(connection.close)  # closing rolls back what is in progress
        raise
    await greenlet_spawn(_committed_and_closed, connection)


def _begun_connection(engine: Engine) -> tuple[Connection, Any]:
    """A connection with its transaction begun, and its driver connection."""
    connection = engine.connect()
    connection.begin()
    return connection, connection.connection.driver_connection


def _committed_and_closed(connection: Connection) -> None:
    try:
        connection.commit()
    finally:
        connection.close()


@asynccontextmanager
async def _reading(
    engine: AsyncEngine,
    sessions: async_sessionmaker[AsyncSession],
    clock: Clock,
    cache: VersionedCache | None,
) -> AsyncIterator[UnitOfWork]:
    reads = reads_outside_transactions(engine)

    async def write_apart(statement: Executable) -> None:
        # Not in the read's own session: on SQLite its write lock would be held, outside the
        # writers' queue, until the read ended, and other writers would give up waiting.
        async with _unit(sessions, clock, write=True, cache=cache) as apart:
            await apart.session.execute(statement)

    try:
        async with _ending_session(
            UnitOfWork(
                clock=clock, cache=cache, reads=reads, sessions=sessions, write_apart=write_apart
            )
        ) as uow:
            yield uow
    finally:
        await reads.close()


@asynccontextmanager
async def _ending_session(uow: UnitOfWork) -> AsyncIterator[UnitOfWork]:
    """The unit, whose session, if one was opened, commits when the block ends normally and
    closes in any case."""
    try:
        yield uow
        if uow.opened is not None:
            await uow.opened.commit()
    finally:
        if uow.opened is not None:
            await uow.opened.close()

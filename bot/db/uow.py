"""The unit of work every service takes first: one transaction, the clock, who and where."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, TypeVar
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, Engine, Table
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.util import greenlet_spawn

from bot.clock import Clock
from bot.db import driver, locks, many
from bot.db.engine import take_sqlite_write_lock
from bot.db.reads import Reads, TransactionReads, reads_outside_transactions
from bot.db.statements import AnySelect, AnyStatement, Prepared, Row, Statement
from bot.db.timeouts import timed_out
from bot.errors import QueryTooLong

E = TypeVar("E")
T = TypeVar("T")


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
    """What a service acts through: the statements and entities of one unit of work, the clock,
    who and where.

    Statements (SQLAlchemy Core, `bot.db.statements`) go through `rows`, `row`, `value`,
    `values`, `execute`, `execute_many` and `insert_many`; entities (the ORM classes of
    `bot.db.tables`) through `get`, `entity`, `entities`, `entity_rows`, `add`, `delete` and
    `flush`; `hold` takes a named lock. The unit decides where each runs: a unit that only reads
    reads outside any transaction (`bot.db.reads`); a writing unit runs everything in its one
    transaction, flushing the entities it holds before a statement runs, so every statement sees
    them (docs/ARCHITECTURE.md, "Reaching the database")."""

    __slots__ = (
        "_committed",
        "_reads",
        "_session",
        "_sessions",
        "_write_apart",
        "actor",
        "cache",
        "channel",
        "clock",
        "from_source",
    )

    def __init__(
        self,
        *,
        clock: Clock,
        reads: Reads,
        sessions: Callable[..., AsyncSession],
        cache: VersionedCache | None = None,
        write_apart: Callable[[Statement], Awaitable[None]] | None = None,
    ) -> None:
        self.clock = clock
        self.cache = cache
        self.actor: Actor | None = None
        self.channel: ChannelScope | None = None
        # The sync engine applying a change read from a source: it never goes back out.
        self.from_source = False
        self._reads = reads
        self._session: AsyncSession | None = None
        self._sessions = sessions
        self._write_apart = write_apart
        self._committed: list[Callable[[], None]] = []

    def on_commit(self, callback: Callable[[], None]) -> None:
        """Call `callback` once the unit has committed (never after a rollback), e.g. to wake a
        worker for what it wrote; a callback given twice is called once."""
        if callback not in self._committed:
            self._committed.append(callback)

    # Statements.

    async def rows(
        self, statement: Statement, values: Mapping[str, Any] | None = None
    ) -> list[Row]:
        """The rows of a select (`FOR UPDATE`: locked until the unit ends; a writing unit's)."""
        if _locks(statement):
            dialect, connection = await self._writing()
        else:
            await self._flushed()
            dialect, connection = await self._reads.connection()
        return await driver.run(dialect, connection, statement, values)

    async def row(
        self, statement: Statement, values: Mapping[str, Any] | None = None
    ) -> Row | None:
        """The first row of a select, or None."""
        rows = await self.rows(statement, values)
        return rows[0] if rows else None

    async def value(self, statement: Statement, values: Mapping[str, Any] | None = None) -> Any:
        """The first column of a select's first row, or None."""
        rows = await self.rows(statement, values)
        return next(iter(rows[0].values())) if rows else None

    async def values(
        self, statement: Statement, values: Mapping[str, Any] | None = None
    ) -> list[Any]:
        """The first column of each of a select's rows."""
        return [next(iter(row.values())) for row in await self.rows(statement, values)]

    async def execute(
        self, statement: Statement, values: Mapping[str, Any] | None = None
    ) -> list[Row]:
        """Run a write (INSERT, UPDATE, DELETE) in the unit's transaction; its RETURNING rows."""
        session = self._keeping_in_step(statement)
        if session is not None:
            result = await session.execute(_statement_of(statement), values)
            returns = bool(_statement_of(statement).exported_columns)
            return [Row(row) for row in result.mappings()] if returns else []
        dialect, connection = await self._writing()
        return await driver.run(dialect, connection, statement, values)

    async def execute_many(
        self,
        statement: Statement,
        rows: Sequence[Mapping[str, Any]],
        same: Mapping[str, Any] | None = None,
    ) -> None:
        """Run a write once per row of values, sent together; `same` holds what they share."""
        if not rows:
            return
        session = self._keeping_in_step(statement)
        if session is not None:
            await session.execute(
                _statement_of(statement), [{**(same or {}), **row} for row in rows]
            )
            return
        dialect, connection = await self._writing()
        await driver.run_many(dialect, connection, statement, rows, same)

    async def insert_many(
        self, table: Table, rows: Sequence[Mapping[str, Any]], same: Mapping[str, Any]
    ) -> None:
        """Insert `rows` (each with the same keys: text, JSON, aware datetimes, whole numbers or
        booleans) into `table`, every one also with the values `same`, the fastest way the
        database has (`bot.db.many`)."""
        dialect, connection = await self._writing()
        await many.insert_rows(dialect, connection, table, rows, same)

    async def hold(self, *names: str, shared: bool = False) -> None:
        """Hold the named locks until the unit's transaction ends (`bot.db.locks`)."""
        await locks.hold(self._transaction().transaction_connection, *names, shared=shared)

    async def write_apart(self, statement: Statement) -> None:
        """A small write a read makes on the side (a session's sliding expiry): in a unit that
        only reads, a transaction of its own, committed at once and queued with the other
        writers; in a writing unit, part of its transaction."""
        if self._write_apart is None:
            await self.execute(statement)
        else:
            await self._write_apart(statement)

    # Entities.

    def add(self, *entities: Any) -> None:
        """New entities, inserted at the next flush or statement."""
        self.session.add_all(entities)

    async def get(self, model: type[E], key: Any, *, for_update: bool = False) -> E | None:
        """The entity of `model` with this primary key, or None; `for_update` locks its row."""
        session = await self._opened()
        return await session.get(model, key, with_for_update=for_update or None)

    async def entity(self, statement: AnySelect) -> Any | None:
        """The first entity (or value) a select of entities gives, or None."""
        return await (await self._opened()).scalar(statement)

    async def entities(self, statement: AnySelect) -> list[Any]:
        """The entities (or values of the first column) a select gives."""
        return list((await (await self._opened()).scalars(statement)).all())

    async def entity_rows(self, statement: AnySelect) -> list[Any]:
        """The rows, as tuples, of a select of entities beside columns."""
        return list((await (await self._opened()).execute(statement)).all())

    async def delete(self, entity: Any) -> None:
        """Delete an entity at the next flush or statement."""
        await (await self._opened()).delete(entity)

    async def flush(self) -> None:
        """Write what the entities hold now (to see a constraint fail here, say)."""
        await (await self._opened()).flush()

    async def run_sync(self, work: Callable[[Connection], T]) -> T:
        """`work` on the unit's own connection, as SQLAlchemy's synchronous API takes it."""
        connection = await (await self._opened()).connection()
        return await connection.run_sync(work)

    @property
    def session(self) -> AsyncSession:
        """The ORM session behind the entity methods, opened on first use; services use the
        methods, tests inspect through it."""
        if self._session is None:
            self._session = self._sessions()  # begins at its first statement
        return self._session

    async def _opened(self) -> AsyncSession:
        """The session, opened on the connection the unit's reads use when they have one."""
        if self._session is None:
            bind = await self._reads.session_bind()
            self._session = self._sessions() if bind is None else self._sessions(bind=bind)
        return self._session

    def _keeping_in_step(self, statement: Statement) -> AsyncSession | None:
        """The unit's session, for a write of entities (`update(Item)`, not of its table) while
        it holds some: run there, the write updates the entities it holds too."""
        session = self._session
        if session is None or not len(session.identity_map):
            return None
        plugin = _statement_of(statement)._propagate_attrs.get("compile_state_plugin")
        return session if plugin == "orm" else None

    async def _flushed(self) -> None:
        session = self._session
        if session is not None and (session.new or session.dirty or session.deleted):
            await session.flush()

    def _transaction(self) -> TransactionReads:
        if not isinstance(self._reads, TransactionReads):
            raise RuntimeError("writes and locks belong to a unit of work that writes")
        return self._reads

    async def _writing(self) -> tuple[Dialect, Any]:
        """The writing unit's driver connection, its transaction begun, what it holds flushed."""
        transaction = self._transaction()
        await self._flushed()
        return await transaction.begun()


def _statement_of(statement: Statement) -> AnyStatement:
    return statement.statement if isinstance(statement, Prepared) else statement


def _locks(statement: Statement) -> bool:
    select = _statement_of(statement)
    return getattr(select, "_for_update_arg", None) is not None


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
    for callback in uow._committed:
        callback()


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
    and a new greenlet's first frame costs Python 3.11 a fresh stack mapping (an mmap, a munmap,
    page faults): spawning fewer is a visible saving on a SQLite create."""
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

    async def write_apart(statement: Statement) -> None:
        # Not in the read's own session: on SQLite its write lock would be held, outside the
        # writers' queue, until the read ended, and other writers would give up waiting. The
        # read's connection is set aside meanwhile, so the unit does not hold one while it
        # waits for another.
        await reads.set_aside()
        async with _unit(sessions, clock, write=True, cache=cache) as apart:
            await apart.execute(statement)

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
        if uow._session is not None:
            await uow._session.commit()
    finally:
        if uow._session is not None:
            await uow._session.close()

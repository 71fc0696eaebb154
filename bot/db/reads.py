"""Where a unit of work's driver reads (`bot.db.driver`) run.

A unit that writes reads inside its transaction, on its connection, and so sees its own writes.
A unit that only reads does so with no ORM session and no transaction around it: each statement
reads its own snapshot, as PostgreSQL's READ COMMITTED gives every statement anyway. A statement
that must agree with another reads it in the same statement (a list's page carries its version).
Opening, beginning, committing and closing a session cost a read-only request more than its SQL
did on SQLite. On PostgreSQL such a unit takes a pooled connection at its first read and gives it
back at its end; on SQLite every such unit reads on one connection they share (`SharedReads`).
"""

from typing import Any, Protocol
from weakref import WeakKeyDictionary

from sqlalchemy import Engine, event, literal, select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.util import greenlet_spawn


class Reads(Protocol):
    async def connection(self) -> tuple[Dialect, Any]:
        """The dialect, and the driver connection to read on."""
        ...

    async def session_bind(self) -> AsyncConnection | None:
        """The connection the unit's ORM session must use, if not one of its own."""
        ...


class TransactionReads:
    """A writing unit's statements, in its transaction, on its connection (`driver`, the
    driver's own): its reads see its own writes."""

    __slots__ = ("_driver", "transaction_connection")

    def __init__(self, connection: AsyncConnection, driver: Any) -> None:
        self.transaction_connection = connection
        self._driver = driver

    async def connection(self) -> tuple[Dialect, Any]:
        return self.transaction_connection.dialect, self._driver

    async def session_bind(self) -> AsyncConnection | None:
        return None  # the writing unit's session is made bound to its transaction

    async def begun(self) -> tuple[Dialect, Any]:
        """The connection, its transaction begun on the server: PostgreSQL's adapter begins it
        at the first statement SQLAlchemy runs, so one trivial statement begins it for the
        driver's writes and locks to join (outside it, each would end with its own statement)."""
        if not self._driver.is_in_transaction():
            await self.transaction_connection.execute(_BEGIN)
        return self.transaction_connection.dialect, self._driver


_BEGIN = select(literal(1))


class PooledReads:
    """Reads on a connection of the engine's pool, taken at the first read; `close` gives it
    back (the pool's reset rolls back whatever the driver may have begun).

    A unit never holds two: once it opens an ORM session, the session and the reads share one
    connection. Units each holding one and waiting for a second would drain the pool, and then
    wait on each other until the pool's timeout (60 concurrent reads of projects did)."""

    __slots__ = ("_bound", "_driver", "_engine", "_taken")

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._taken: PoolProxiedConnection | None = None
        self._bound: AsyncConnection | None = None
        self._driver: Any = None  # the bound connection's driver connection

    async def connection(self) -> tuple[Dialect, Any]:
        if self._bound is not None:
            return self._engine.dialect, self._driver
        if self._taken is None:
            self._taken = await self._engine.raw_connection()
        return self._engine.dialect, self._taken.driver_connection

    async def session_bind(self) -> AsyncConnection | None:
        if self._bound is None:
            await self._give_back()  # safe: each read ran to its end, outside any transaction
            self._bound = await self._engine.connect()
            self._driver = (await self._bound.get_raw_connection()).driver_connection
        return self._bound

    async def set_aside(self) -> None:
        """Give the connection back while the unit waits for another (a write apart), unless
        its session holds it: the next read takes one again."""
        await self._give_back()

    async def close(self) -> None:
        await self._give_back()
        bound, self._bound, self._driver = self._bound, None, None
        if bound is not None:
            await bound.close()

    async def _give_back(self) -> None:
        taken, self._taken = self._taken, None
        if taken is not None:
            await greenlet_spawn(taken.close)  # the reset awaits the driver


class SharedReads:
    """SQLite's reads outside a transaction, on one connection every reading unit shares. Its
    statements run on the event loop one at a time (`sqlite_inline`), each to its last row and
    outside any transaction, so sharing it shows no unit another's work. It spares each unit a
    pool checkout and check-in: two greenlets, each a fresh stack mapping on Python 3.11, were a
    tenth of a list's time. The connection is the pool's, kept out until the engine is disposed."""

    __slots__ = ("_engine",)

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def connection(self) -> tuple[Dialect, Any]:
        key = self._engine.sync_engine
        shared = _shared.get(key)
        if shared is None:
            taken = await self._engine.raw_connection()
            shared = _shared.setdefault(key, taken)
            if shared is not taken:  # another unit took one meanwhile: keep one
                await greenlet_spawn(taken.close)
            if not event.contains(key, "engine_disposed", _close_shared):
                event.listen(key, "engine_disposed", _close_shared)
        return self._engine.dialect, shared.driver_connection

    async def session_bind(self) -> AsyncConnection | None:
        return None  # SQLite: the session reads on a pooled connection of its own

    async def set_aside(self) -> None:
        """Nothing to give back: the connection is every reading unit's."""

    async def close(self) -> None:
        """Nothing to give back: the connection stays for the next unit."""


_shared: WeakKeyDictionary[Engine, PoolProxiedConnection] = WeakKeyDictionary()


def _close_shared(engine: Engine) -> None:
    # Run by Engine.dispose, in its greenlet: the engine's pool is new, and the shared
    # connection, taken from the old one, is closed rather than given back to it.
    shared = _shared.pop(engine, None)
    if shared is not None:
        shared.invalidate()


def reads_outside_transactions(engine: AsyncEngine) -> PooledReads | SharedReads:
    """Where a unit that only reads reads: SQLite's shared connection, else a pooled one."""
    return SharedReads(engine) if engine.dialect.name == "sqlite" else PooledReads(engine)

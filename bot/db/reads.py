"""Where a unit of work's driver reads (`bot.db.driver`) run.

A unit that writes reads inside its transaction, on its connection, and so sees its own writes.
A unit that only reads takes a pooled connection at its first read and gives it back at its
end, with no ORM session and no transaction around it: each statement reads its own snapshot, as
PostgreSQL's READ COMMITTED gives every statement anyway. A statement that must agree with
another reads it in the same statement (a list's page carries its version). Opening, beginning,
committing and closing a session cost a read-only request more than its SQL did on SQLite.
"""

from typing import Any, Protocol

from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.util import greenlet_spawn


class Reads(Protocol):
    async def connection(self) -> tuple[Dialect, Any]:
        """The dialect, and the driver connection to read on."""
        ...


class TransactionReads:
    """Reads in a writing unit's transaction, on its connection (`driver`, the driver's own):
    they see the unit's own writes. `bot.db.driver.PreparedWrite` writes here too."""

    __slots__ = ("_driver", "transaction_connection")

    def __init__(self, connection: AsyncConnection, driver: Any) -> None:
        self.transaction_connection = connection
        self._driver = driver

    async def connection(self) -> tuple[Dialect, Any]:
        return self.transaction_connection.dialect, self._driver


class PooledReads:
    """Reads on a connection of the engine's pool, taken at the first read; `close` gives it
    back (the pool's reset rolls back whatever the driver may have begun)."""

    __slots__ = ("_engine", "_taken")

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._taken: PoolProxiedConnection | None = None

    async def connection(self) -> tuple[Dialect, Any]:
        if self._taken is None:
            self._taken = await self._engine.raw_connection()
        return self._engine.dialect, self._taken.driver_connection

    async def close(self) -> None:
        taken, self._taken = self._taken, None
        if taken is not None:
            await greenlet_spawn(taken.close)  # the reset awaits the driver

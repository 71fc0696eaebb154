"""An aiosqlite stand-in that runs sqlite3 on the calling thread.

SQLAlchemy's async SQLite dialect drives aiosqlite, which sends every statement, fetch and commit
to a thread of its own and waits for the answer: that hop is most of a short request's time. Given
this module instead (`create_engine` does), the dialect's awaits complete at once. SQLite work then
happens on the event loop, as a raw `sqlite3` handler would do it; writers never wait inside
SQLite for one another, because `bot.uow` queues them on a lock first.
"""

import sqlite3
from collections.abc import Callable, Generator, Iterable
from types import SimpleNamespace
from typing import Any

DatabaseError = sqlite3.DatabaseError
Error = sqlite3.Error
IntegrityError = sqlite3.IntegrityError
NotSupportedError = sqlite3.NotSupportedError
OperationalError = sqlite3.OperationalError
ProgrammingError = sqlite3.ProgrammingError
sqlite_version = sqlite3.sqlite_version
sqlite_version_info = sqlite3.sqlite_version_info


class Cursor:
    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> "Cursor":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._cursor.close()

    async def execute(self, sql: str, parameters: Any = ()) -> "Cursor":
        self._cursor.execute(sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> "Cursor":
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(size if size is not None else self._cursor.arraysize)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _RunNow:
    """Stands for aiosqlite's work queue: what is put on it runs at once."""

    def put_nowait(self, work: tuple[Any, Callable[[], Any]]) -> None:
        future, function = work
        try:
            future.set_result(function())
        except Exception as error:  # handed to the awaiting caller, as aiosqlite does
            future.set_exception(error)


class Connection:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._conn = connection
        self._connection: sqlite3.Connection | None = connection
        self._tx = _RunNow()
        self._thread = SimpleNamespace(daemon=True)  # the dialect marks aiosqlite's thread

    def __await__(self) -> Generator[Any, None, "Connection"]:
        return self._opened().__await__()

    async def _opened(self) -> "Connection":
        return self

    def cursor(self) -> Cursor:
        return Cursor(self._conn.cursor())

    async def execute(self, sql: str, parameters: Any = ()) -> Cursor:
        return Cursor(self._conn.execute(sql, parameters))

    async def fetch(self, sql: str, *parameters: Any) -> list[Any]:
        """Every row of a query, as asyncpg's `Connection.fetch` answers (`bot.db.driver`)."""
        return self._conn.execute(sql, parameters).fetchall()

    async def executemany(self, sql: str, arguments: Iterable[Any]) -> None:
        """One statement per set of arguments, as asyncpg's `Connection.executemany` runs them."""
        self._conn.executemany(sql, arguments)

    def is_in_transaction(self) -> bool:
        """Whether a transaction is open, as asyncpg's `Connection.is_in_transaction` says."""
        return self._conn.in_transaction

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        if self._connection is not None:
            self._conn.close()
            self._connection = None

    def stop(self) -> None:
        if self._connection is not None:
            self._conn.close()
            self._connection = None

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._conn.isolation_level = value  # type: ignore[assignment]


def connect(database: str, **kwargs: Any) -> Connection:
    # The pool may hand a connection to any task; they all run on the loop's one thread.
    kwargs["check_same_thread"] = False
    return Connection(sqlite3.connect(database, **kwargs))

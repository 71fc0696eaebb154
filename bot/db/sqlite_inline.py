"""An aiosqlite stand-in that runs sqlite3 on the event loop while a statement is short, and on a
thread when it is not.

SQLAlchemy's async SQLite dialect drives aiosqlite, which sends every statement to a thread of
its own and waits for the answer: that hop is most of a short request's time. Given this module
instead (`create_engine` does), a short statement runs on the loop at once, as a raw `sqlite3`
handler would run it. A statement that would hold the loop runs on a thread:

- A read starts on the loop with a budget of `LOOP_BUDGET_S`; past it, SQLite interrupts it and
  it runs again on a thread (a read outside a transaction on a reader connection of its own, in a
  transaction on its connection's thread, where it sees the transaction's writes). Once its SQL
  has overrun twice in a row, its next runs go to the thread at once, until one runs short.
- A write cannot be stopped and run again (SQLite rolls back the whole transaction of an
  interrupted write), so it runs on its connection's thread until its SQL has proved short
  (`PROVEN_RUNS` runs in a row), and goes back there when it overruns the budget (`Lessons`).
- What is a read is told by `bot.db.read_statements` (a SELECT, or a WITH clause's SELECT).
- What statements taught (`Lessons`) is an engine's own, shared by its connections: another
  engine, on another database, learns about its statements by itself.
- Every statement stops at the connection's `timeout_s` (`StatementTimeout`): a write's
  transaction is then rolled back, so nothing is left half done.

Writers never wait inside SQLite for one another, because `bot.db.uow` queues them on a lock first.
"""

import asyncio
import math
import sqlite3
import threading
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any, TypeVar

from bot.db.read_statements import only_reads

DatabaseError = sqlite3.DatabaseError
Error = sqlite3.Error
IntegrityError = sqlite3.IntegrityError
NotSupportedError = sqlite3.NotSupportedError
OperationalError = sqlite3.OperationalError
ProgrammingError = sqlite3.ProgrammingError
sqlite_version = sqlite3.sqlite_version
sqlite_version_info = sqlite3.sqlite_version_info

# How long a statement may hold the event loop; every other request waits meanwhile.
LOOP_BUDGET_S = 0.002
# SQLite calls the clock check once per this many virtual machine steps: tens of microseconds of
# work, so a budget overruns by little, and a short statement pays a few checks.
STEPS_PER_CHECK = 5_000
PROVEN_RUNS = 3  # a write's runs under half the budget before it may run on the loop
OVERRUNS_TO_LEAVE = 2
# Reads that left the loop, run at once per connection (the rest queue): more than one caller's
# share of lists (`LISTS_IN_FLIGHT`, 4), so that one caller's heavy lists leave threads for others.
READER_THREADS = 6
SQL_REMEMBERED = 4_096

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]


class StatementTimeout(sqlite3.OperationalError):
    """A statement ran past its connection's time bound and was interrupted."""


class Lessons:
    """What statements taught an engine's connections, by SQL text. A statement leaves the loop
    once it has overrun the budget twice in a row (once may be the machine pausing the process,
    not the statement); a write runs on the loop once it has run short `PROVEN_RUNS` times in a
    row. Either comes back as soon as it runs short again."""

    def __init__(self) -> None:
        self._overruns: dict[str, int] = {}
        self._short_runs: dict[str, int] = {}

    def on_loop(self, sql: str, *, read: bool) -> bool:
        if self._overruns.get(sql, 0) >= OVERRUNS_TO_LEAVE:
            return False
        return read or self._short_runs.get(sql, 0) >= PROVEN_RUNS

    def ran(self, sql: str, seconds: float) -> None:
        if seconds > LOOP_BUDGET_S:
            _bounded(self._overruns)[sql] = self._overruns.get(sql, 0) + 1
            self._short_runs.pop(sql, None)
        elif seconds <= LOOP_BUDGET_S / 2:
            self._overruns.pop(sql, None)
            runs = self._short_runs.get(sql, 0)
            if runs < PROVEN_RUNS:
                _bounded(self._short_runs)[sql] = runs + 1


def _bounded(remembered: dict[str, Any]) -> dict[str, Any]:
    # The app's own statements are a few hundred; clients' filters add more: forget the oldest.
    if len(remembered) >= SQL_REMEMBERED:
        del remembered[next(iter(remembered))]
    return remembered


class _Clocked:
    """A sqlite3 connection whose statements SQLite interrupts past a given instant."""

    __slots__ = ("raw", "stop_at")

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw
        self.stop_at = math.inf
        raw.set_progress_handler(self._past_stop, STEPS_PER_CHECK)

    def _past_stop(self) -> bool:
        return time.monotonic() > self.stop_at

    def run(self, work: Work[T], stop_at: float) -> tuple[T, float]:
        """What `work` returns, and how long it took."""
        self.stop_at = stop_at
        start = time.monotonic()
        try:
            return work(self.raw), time.monotonic() - start
        finally:
            self.stop_at = math.inf


class _Readers:
    """Reader connections of their own, one per thread, for reads that left the loop."""

    def __init__(self, open_raw: Callable[[], sqlite3.Connection]) -> None:
        self._open_raw = open_raw
        self._local = threading.local()
        self._opened: list[_Clocked] = []
        self._lock = threading.Lock()
        self.threads = ThreadPoolExecutor(READER_THREADS, thread_name_prefix="sqlite-reader")

    def reader(self) -> _Clocked:
        """The calling reader thread's connection, opened at its first read."""
        clocked: _Clocked | None = getattr(self._local, "clocked", None)
        if clocked is None:
            clocked = self._local.clocked = _Clocked(self._open_raw())
            with self._lock:
                self._opened.append(clocked)
        return clocked

    def close(self) -> None:
        self.threads.shutdown(wait=True)
        for clocked in self._opened:
            clocked.raw.close()


class Cursor:
    """A cursor whose statement runs, rows and all, when it is executed (as SQLAlchemy's adapter
    reads them anyway), wherever its connection decides."""

    def __init__(self, connection: "Connection") -> None:
        self._connection = connection
        self._rows: list[Any] = []
        self.description: Any = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1

    async def __aenter__(self) -> "Cursor":
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def execute(self, sql: str, parameters: Any = ()) -> "Cursor":
        def work(raw: sqlite3.Connection) -> tuple[list[Any], Any, int, int | None]:
            cursor = raw.execute(sql, parameters)
            try:
                rows = cursor.fetchall() if cursor.description else []
                return rows, cursor.description, cursor.rowcount, cursor.lastrowid
            finally:
                cursor.close()

        self._rows, self.description, self.rowcount, self.lastrowid = await self._connection.run(
            sql, work
        )
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> "Cursor":
        def work(raw: sqlite3.Connection) -> int:
            cursor = raw.executemany(sql, parameters)
            try:
                return cursor.rowcount
            finally:
                cursor.close()

        self.rowcount = await self._connection.run(sql, work, many=True)
        self._rows, self.description = [], None
        return self

    async def fetchone(self) -> Any:
        return self._rows.pop(0) if self._rows else None

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        taken = self._rows[: size if size is not None else self.arraysize]
        del self._rows[: len(taken)]
        return taken

    async def fetchall(self) -> list[Any]:
        rows, self._rows = self._rows, []
        return rows

    async def close(self) -> None:
        self._rows = []


class _RunNow:
    """Stands for aiosqlite's work queue: what is put on it runs at once."""

    def put_nowait(self, work: tuple[Any, Callable[[], Any]]) -> None:
        future, function = work
        try:
            future.set_result(function())
        except Exception as error:  # handed to the awaiting caller, as aiosqlite does
            future.set_exception(error)


class Connection:
    def __init__(
        self,
        connection: sqlite3.Connection,
        open_raw: Callable[[], sqlite3.Connection],
        lessons: Lessons,
    ) -> None:
        self._conn = connection
        self._lessons = lessons
        self._connection: sqlite3.Connection | None = connection
        self._clocked = _Clocked(connection)
        self._open_raw = open_raw
        self.timeout_s = math.inf
        self._own_thread: ThreadPoolExecutor | None = None  # for its transaction's long work
        self._readers: _Readers | None = None
        self._tx = _RunNow()
        self._thread = SimpleNamespace(daemon=True)  # the dialect marks aiosqlite's thread

    def __await__(self) -> Generator[Any, None, "Connection"]:
        return self._opened().__await__()

    async def _opened(self) -> "Connection":
        return self

    def cursor(self) -> Cursor:
        return Cursor(self)

    async def execute(self, sql: str, parameters: Any = ()) -> Cursor:
        return await Cursor(self).execute(sql, parameters)

    async def fetch(self, sql: str, *parameters: Any) -> list[Any]:
        """Every row of a query, as asyncpg's `Connection.fetch` answers (`bot.db.driver`)."""
        return await self.run(sql, lambda raw: raw.execute(sql, parameters).fetchall())

    async def executemany(self, sql: str, arguments: Iterable[Any]) -> None:
        """One statement per set of arguments, as asyncpg's `Connection.executemany` runs them."""
        await self.run(sql, lambda raw: raw.executemany(sql, arguments).close(), many=True)

    async def run(self, sql: str, work: Work[T], *, many: bool = False) -> T:
        """`work`'s statement on the loop while it is short, else on a thread (module doc)."""
        deadline = time.monotonic() + self.timeout_s
        read = only_reads(sql)
        if many or not self._lessons.on_loop(sql, read=read):
            return await self._off_loop(sql, work, deadline, read=read)
        stop_at = min(deadline, time.monotonic() + LOOP_BUDGET_S) if read else deadline
        try:
            result, seconds = self._clocked.run(work, stop_at)
        except sqlite3.OperationalError as error:
            if not _interrupted(error):
                raise
            if not read or time.monotonic() >= deadline:
                raise _timed_out(self.timeout_s) from error
            self._lessons.ran(sql, math.inf)  # a read that outgrew the loop: again, on a thread
            return await self._off_loop(sql, work, deadline, read=read)
        self._lessons.ran(sql, seconds)
        return result

    async def _off_loop(self, sql: str, work: Work[T], deadline: float, *, read: bool) -> T:
        if read and not self._conn.in_transaction:
            readers = self._readers_started()
            pick: Callable[[], _Clocked] = readers.reader
            threads = readers.threads
        else:
            pick, threads = (lambda: self._clocked), self._thread_started()
        ran_on: list[_Clocked] = []

        def job() -> tuple[T, float]:
            ran_on.append(pick())
            return ran_on[0].run(work, deadline)

        submitted = threads.submit(job)
        running = asyncio.wrap_future(submitted)
        try:
            result, seconds = await asyncio.shield(running)
        except asyncio.CancelledError:
            # A cancelled caller's statement stops (or never starts), and the caller's cleanup
            # waits until no thread uses its connection.
            submitted.cancel()
            for clocked in ran_on:
                clocked.raw.interrupt()
            await asyncio.wait({running})
            if not running.cancelled():
                running.exception()  # the caller is gone: its statement's end is nobody's error
            raise
        except sqlite3.OperationalError as error:
            if _interrupted(error):
                raise _timed_out(self.timeout_s) from error
            raise
        self._lessons.ran(sql, seconds)
        return result

    def _thread_started(self) -> ThreadPoolExecutor:
        if self._own_thread is None:
            self._own_thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-connection")
        return self._own_thread

    def _readers_started(self) -> _Readers:
        if self._readers is None:
            self._readers = _Readers(self._open_raw)
        return self._readers

    def is_in_transaction(self) -> bool:
        """Whether a transaction is open, as asyncpg's `Connection.is_in_transaction` says."""
        return self._conn.in_transaction

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        self.stop()

    def stop(self) -> None:
        if self._connection is None:
            return
        self._connection = None
        if self._own_thread is not None:
            self._own_thread.shutdown(wait=True)
        if self._readers is not None:
            self._readers.close()
        self._conn.close()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._conn.isolation_level = value  # type: ignore[assignment]


def _interrupted(error: sqlite3.OperationalError) -> bool:
    return str(error) == "interrupted"


def _timed_out(seconds: float) -> StatementTimeout:
    return StatementTimeout(f"statement interrupted after {seconds:g} s")


def connect(
    database: str,
    *,
    timeout_s: float = math.inf,
    prepare: Callable[[sqlite3.Connection], None] = lambda _raw: None,
    lessons: Lessons | None = None,
    **kwargs: Any,
) -> Connection:
    """A connection to `database` whose statements stop after `timeout_s`; `prepare` readies
    each raw connection it opens (its own, and its readers'). It learns where to run its
    statements into `lessons`, its engine's (by default, lessons of its own)."""
    # The pool may hand a connection to any task, and its work may leave the loop for a thread.
    kwargs["check_same_thread"] = False

    def open_raw() -> sqlite3.Connection:
        raw = sqlite3.connect(database, **kwargs)
        prepare(raw)
        return raw

    connection = Connection(open_raw(), open_raw, lessons or Lessons())
    connection.timeout_s = timeout_s
    return connection

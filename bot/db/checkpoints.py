"""SQLite's WAL checkpoints, off the requests' path, while the app serves.

By default the connection whose commit takes the WAL past 1,000 pages copies the WAL back into
the database file there and then, inside its request, which then pays for the copy (a bulk
edit most of its time; docs/BENCHMARKS.md, "Figures that were in the code"). The served app
checkpoints on a thread of its own instead, with its own connection, a moment after writes
land; PASSIVE, so it never waits for readers or writers, and the thread's SQLite calls run
beside the event loop (sqlite3 lets go of the GIL). The connections' own automatic checkpoint
stays, as a backstop the thread keeps the WAL well under.
"""

import asyncio
import logging
import sqlite3
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, closing
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger(__name__)

# Pages of WAL at which a connection's commit still checkpoints itself (about 40 MB).
BACKSTOP_PAGES = 10_000
# How often the thread looks: a look with nothing new to copy reads the WAL's header only.
INTERVAL_S = 0.1


@asynccontextmanager
async def in_background(engine: AsyncEngine) -> AsyncIterator[None]:
    """While the block runs, checkpoint the SQLite file `engine` writes on a thread. The pool's
    open connections are closed first, so that every connection takes the backstop. Other
    databases checkpoint on their own: nothing happens for them."""
    path = make_url(str(engine.url)).database
    if engine.dialect.name != "sqlite" or not path or path == ":memory:":
        yield
        return
    event.listen(engine.sync_engine, "connect", _backstop)
    await engine.dispose()
    stop = threading.Event()
    # A daemon: a process that ends without its cleanup must not wait for it (SQLite survives a
    # checkpoint cut short).
    thread = threading.Thread(
        target=_checkpoint, args=(path, stop), name="sqlite-checkpoints", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        stop.set()
        await asyncio.to_thread(thread.join)
        event.remove(engine.sync_engine, "connect", _backstop)


def _backstop(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA wal_autocheckpoint={BACKSTOP_PAGES}")
    cursor.close()


def _checkpoint(path: str, stop: threading.Event) -> None:
    failing = False
    with closing(sqlite3.connect(path, isolation_level=None)) as connection:
        while not stop.wait(INTERVAL_S):
            try:
                connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as exc:
                # Logged once, not every tenth of a second; the backstop checkpoints meanwhile.
                if not failing:
                    log.warning("SQLite checkpoints failing: %s", exc)
                failing = True
            else:
                failing = False

"""Wake-ups across processes: PostgreSQL's LISTEN/NOTIFY.

Migration 0009 has PostgreSQL notify `WORK_TOPIC` at the commit of any statement that writes
pending events or jobs (a statement trigger: no round trip of the writer's own). Every process
listens on a connection of its own, outside the pool. SQLite serves one process, whose own
commits wake its worker (`bot.jobs.wakeups`); here it listens to nothing.
"""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable

import asyncpg
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger(__name__)

WORK_TOPIC = "tracker_work"
# After losing the listening connection: wake once (a notification may have been missed), wait
# this long, connect again. The worker's poll covers the gap.
RECONNECT_AFTER_S = 2.0


@contextlib.asynccontextmanager
async def listening(
    engine: AsyncEngine, topic: str, callback: Callable[[], None]
) -> AsyncIterator[None]:
    """Call `callback` on every notification of `topic` while the block runs (PostgreSQL)."""
    if engine.dialect.name != "postgresql":
        yield
        return
    task = asyncio.create_task(_listen(engine.url, topic, callback))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _listen(url: URL, topic: str, callback: Callable[[], None]) -> None:
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    while True:
        try:
            await _listen_until_lost(dsn, topic, callback)
        except (OSError, asyncpg.PostgresError) as error:
            log.warning("cannot listen for %s (%s); retrying", topic, error)
        callback()  # a notification may have come while nobody listened
        await asyncio.sleep(RECONNECT_AFTER_S)


async def _connect(dsn: str) -> asyncpg.Connection:
    """Connect, and if cancelled meanwhile (the app stopping as it starts), finish connecting
    and drop the connection: asyncpg would otherwise leave a half-made one to the collector."""
    connecting = asyncio.ensure_future(asyncpg.connect(dsn))
    try:
        return await asyncio.shield(connecting)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            (await connecting).terminate()
        raise


async def _listen_until_lost(dsn: str, topic: str, callback: Callable[[], None]) -> None:
    connection = await _connect(dsn)
    lost = asyncio.Event()
    try:
        connection.add_termination_listener(lambda _connection: lost.set())
        await connection.add_listener(topic, lambda *_notification: callback())
        callback()  # what was written before this listened
        await lost.wait()
        log.warning("the connection listening for %s was lost; reconnecting", topic)
    finally:
        # Not close(): awaiting it while being cancelled leaves the socket to the garbage
        # collector, which warns; nothing is in flight on a listening connection.
        connection.terminate()

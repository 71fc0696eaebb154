"""The two real databases storage tests run on: a SQLite file and a fresh PostgreSQL database."""

import asyncio
import os
import secrets
import shutil
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from bot.db.engine import create_engine
from bot.db.migrate import migrate
from bot.db.tables import Base

POSTGRES_SERVER = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432"
)


def sqlite_url(folder: Path) -> str:
    return f"sqlite+aiosqlite:///{folder / 'test.db'}"


def create_postgres_database() -> str:
    """A new, empty database on the local server; outside CI an unreachable server skips."""
    name = f"tracker_test_{secrets.token_hex(4)}"
    try:
        asyncio.run(admin(f'CREATE DATABASE "{name}"'))
        # A test database outlives no server crash: commits need not wait for the disk.
        asyncio.run(admin(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    except (OSError, ConnectionError) as exc:
        reason = f"PostgreSQL at {POSTGRES_SERVER} is unreachable ({exc})"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI needs it", pytrace=False)
        pytest.skip(f"{reason}; storage tests on PostgreSQL skipped outside CI")
    return f"{POSTGRES_SERVER}/{name}"


def drop_postgres_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    asyncio.run(admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def admin(statement: str) -> None:
    engine = create_async_engine(f"{POSTGRES_SERVER}/postgres", isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await engine.dispose()


def migrate_to_head(url: str) -> None:
    async def run() -> None:
        engine = create_engine(url)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(run())


async def empty_all_tables(url: str) -> None:
    """Delete every row, children first, so each test starts from an empty schema: one script
    in one round trip on the driver's own connection (a statement per table through an engine
    cost most of a test's set-up)."""
    tables = reversed(Base.metadata.sorted_tables)
    script = "BEGIN;" + "".join(f'DELETE FROM "{table.name}";' for table in tables) + "COMMIT;"
    if url.startswith("sqlite"):
        connection = sqlite3.connect(url.split(":///", 1)[1])
        try:
            connection.executescript(script)
        finally:
            connection.close()
        return
    server = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://", 1))
    try:
        await server.execute(script)  # no arguments: the simple protocol, several statements
    finally:
        await server.close()


@asynccontextmanager
async def unreachable(url: str, engine: AsyncEngine, sqlite_folder: Path) -> AsyncIterator[None]:
    """The database at `url` refusing new connections, `engine`'s pooled ones closed: SQLite
    by removing `sqlite_folder`, its file's (a file of the test's own), PostgreSQL by refusing
    connections to the database until the block ends."""
    name = url.rsplit("/", 1)[1]
    if url.startswith("sqlite"):
        shutil.rmtree(sqlite_folder)  # SQLite cannot open a file in a folder that is gone
    else:
        await admin(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        await admin(
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        )
    await engine.dispose()
    try:
        yield
    finally:
        if not url.startswith("sqlite"):
            await admin(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')

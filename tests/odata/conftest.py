"""The probe tables in each test database, an engine on them, and a way to run queries."""

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import create_engine
from tests.odata.probe import Lister, assignee_rows, assignees, metadata, probe_rows, probes


@pytest.fixture(scope="module")
def probe_database(database_url: str) -> Iterator[str]:
    """The migrated test database with the probe tables filled; they go when the module ends."""
    asyncio.run(_create(database_url))
    try:
        yield database_url
    finally:
        asyncio.run(_drop(database_url))


@pytest.fixture
async def engine(probe_database: str) -> AsyncIterator[AsyncEngine]:
    made = create_engine(probe_database)
    try:
        yield made
    finally:
        await made.dispose()


@pytest.fixture
def lister(engine: AsyncEngine) -> Lister:
    return Lister(engine)


async def _create(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(metadata.drop_all)  # left over by an interrupted run
            await conn.run_sync(metadata.create_all)
            await conn.execute(probes.insert(), probe_rows())
            await conn.execute(assignees.insert(), assignee_rows())
    finally:
        await engine.dispose()


async def _drop(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(metadata.drop_all)
    finally:
        await engine.dispose()

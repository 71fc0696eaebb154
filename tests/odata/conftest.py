"""The probe tables in each test database, an engine on them, and a way to run queries."""

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import create_engine
from tests.odata.probe import Lister, assignee_rows, assignees, metadata, probe_rows, probes
from tests.odata.scratch import scratch_tables


@pytest.fixture(scope="module")
def probe_database(database_url: str) -> Iterator[str]:
    """The migrated test database with the probe tables filled; they go when the module ends."""
    filled = {probes: probe_rows(), assignees: assignee_rows()}
    with scratch_tables(database_url, metadata, filled) as url:
        yield url


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

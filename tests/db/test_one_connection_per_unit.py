"""A unit of work holds one pooled connection at a time, whatever it reads with: statements and
entities together, or a write apart. Units each holding one and waiting for a second would drain
the pool and then wait on each other until its timeout, serving nothing meanwhile."""

import asyncio
from datetime import timedelta

from aiohttp.test_utils import TestClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from bot.auth.service import SLIDE_GRANULARITY
from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Item, Team
from bot.db.uow import unit_of_work
from tests.factories import Factory

COUNT_ITEMS = select(func.count()).select_from(Item)
CONCURRENT = 60  # three times the pool (10 and 10 more)


async def test_a_read_with_statements_and_entities_needs_one_connection(
    db: str, factory: Factory, clock: FrozenClock
) -> None:
    await factory.standard_team()
    if db.startswith("sqlite"):  # its reads share one connection apart from the pool
        engine = create_engine(db)
    else:
        engine = create_async_engine(db, pool_size=1, max_overflow=0, pool_timeout=2)
    sessions = session_factory(engine)
    try:
        for statements_first in (True, False):
            async with unit_of_work(sessions, clock, write=False) as uow:
                if statements_first:
                    assert await uow.value(COUNT_ITEMS) == 0
                assert [team.name for team in await uow.entities(select(Team))] == ["Team A"]
                assert await uow.value(COUNT_ITEMS) == 0
    finally:
        await engine.dispose()


async def test_many_concurrent_reads_of_every_shape_are_all_answered(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    ada = await factory.member()
    paths = ["/api/projects", "/odata/status", "/api/events", "/odata/_fieldMappings", "/api/me"]
    # Every session's expiry slides forward at its next use: a write apart in each read.
    clock.advance(SLIDE_GRANULARITY + timedelta(seconds=1))

    async def read(path: str) -> int:
        async with client.get(path, headers=ada.in_channel()) as response:
            await response.read()
            return response.status

    statuses = await asyncio.gather(
        *(read(paths[n % len(paths)]) for n in range(CONCURRENT * len(paths)))
    )
    assert set(statuses) == {200}

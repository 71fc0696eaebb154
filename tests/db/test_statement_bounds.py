"""Every statement is stopped past the engine's time bound, on both databases: a unit of work
ends with `QueryTooLong`, and a writing unit's earlier writes are rolled back with it."""

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import Team
from bot.db.uow import unit_of_work
from bot.errors import QueryTooLong
from tests.conftest import START

BOUND_S = 0.3
# Runs for many seconds on either database unless stopped.
ENDLESS = {
    "sqlite": "SELECT count(*) FROM (WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1"
    " FROM n LIMIT 1000000000) SELECT x FROM n)",
    "postgresql": "SELECT count(*) FROM pg_sleep(60)",
}


@pytest.fixture
async def bounded(db: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(db, statement_timeout_s=BOUND_S)
    try:
        yield engine
    finally:
        await engine.dispose()


def _team() -> Team:
    return Team(
        id="t" * 24, teams_id="19:t", name="T", tenant_id=None, created_at=START, updated_at=START
    )


def endless(engine: AsyncEngine) -> str:
    return ENDLESS[engine.dialect.name]


async def test_a_read_past_the_bound_is_stopped_and_the_unit_says_so(bounded: AsyncEngine):
    sessions = session_factory(bounded)
    with pytest.raises(QueryTooLong) as raised:
        async with (
            asyncio.timeout(30),
            unit_of_work(sessions, FrozenClock(START), write=False) as uow,
        ):
            await uow.session.execute(text(endless(bounded)))
    assert raised.value.status == 503
    assert raised.value.body() == {"error": "The query took too long; narrow the filter."}


async def test_a_writing_unit_stopped_by_the_bound_leaves_nothing_behind(bounded: AsyncEngine):
    sessions = session_factory(bounded)
    with pytest.raises(QueryTooLong):
        async with asyncio.timeout(30), unit_of_work(sessions, FrozenClock(START)) as uow:
            uow.session.add(_team())
            await uow.session.flush()
            await uow.session.execute(text(endless(bounded)))
    async with unit_of_work(sessions, FrozenClock(START), write=False) as uow:
        assert (await uow.session.execute(text("SELECT count(*) FROM teams"))).scalar() == 0


async def test_statements_within_the_bound_run_to_their_end(bounded: AsyncEngine):
    sessions = session_factory(bounded)
    async with unit_of_work(sessions, FrozenClock(START)) as uow:
        uow.session.add(_team())
    async with unit_of_work(sessions, FrozenClock(START), write=False) as uow:
        assert (await uow.session.execute(text("SELECT count(*) FROM teams"))).scalar() == 1

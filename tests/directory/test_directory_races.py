"""Directory writes that race, as the bot's roster syncs do when an app is installed (several
activities about one new team at once): each tenant, team, channel and membership is recorded
once, a channel is set up once, and none of them fails. On PostgreSQL each looked its row up
before another's insert committed (a unique violation); SQLite's writers take turns, and run the
same tests."""

import asyncio

from sqlalchemy import func, select

from bot.db.tables import Channel, FieldValue, Project, Team, TeamMember, Tenant
from tests.factories import Factory

NEW_TENANT = "5e5e5e5e-0000-4000-8000-000000000010"
NEW_TEAM = "19:team-new@thread.tacv2"
NEW_CHANNEL = "19:channel-new@thread.tacv2"


async def _count(factory: Factory, table: type) -> int:
    async with factory.work() as uow:
        return await uow.session.scalar(select(func.count()).select_from(table)) or 0


async def test_10_parallel_syncs_of_a_new_team_record_it_once(factory: Factory) -> None:
    teams = await asyncio.gather(
        *(factory.team(NEW_TEAM, name=f"Team {n}", tenant_id="") for n in range(10))
    )
    assert len({team.id for team in teams}) == 1
    assert await _count(factory, Team) == 1


async def test_10_parallel_syncs_of_new_teams_of_a_new_tenant_record_it_once(
    factory: Factory,
) -> None:
    await asyncio.gather(
        *(factory.team(f"19:team-{n}@thread.tacv2", tenant_id=NEW_TENANT) for n in range(10))
    )
    assert (await _count(factory, Team), await _count(factory, Tenant)) == (10, 1)


async def test_10_parallel_syncs_of_a_new_channel_set_it_up_once(factory: Factory) -> None:
    await factory.team(NEW_TEAM, tenant_id=NEW_TENANT)
    channels = await asyncio.gather(
        *(factory.channel(NEW_CHANNEL, team_id=NEW_TEAM) for _ in range(10))
    )
    assert len({channel.id for channel in channels}) == 1
    assert (await _count(factory, Channel), await _count(factory, Project)) == (1, 1)
    # The defaults once: 3 statuses and 4 priorities per kind, 4 bug severities.
    assert await _count(factory, FieldValue) == 2 * (3 + 4) + 4


async def test_30_parallel_joins_of_one_user_make_one_membership(factory: Factory) -> None:
    await factory.standard_team()
    others = [await factory.user() for _ in range(15)]
    # Joins of distinct users first fill the pool, so Ada's joins start together, not one
    # per new connection.
    await asyncio.gather(*(factory.join(user) for user in others))
    ada = await factory.user("Ada")
    await asyncio.gather(*(factory.join(ada) for _ in range(30)))
    assert await _count(factory, TeamMember) == 15 + 1

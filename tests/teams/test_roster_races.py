"""Roster syncs that race: two member lists of one team, in opposite orders, recorded at once.
Each sync holds every member's lock until it commits (`bot.directory.users.upsert_user`), so on
PostgreSQL two syncs taking them in different orders deadlocked; sorted, one waits for the other.
SQLite's writers take turns, and run the same test."""

import asyncio

from sqlalchemy import func, select

from bot.db.tables import TeamMember, User
from bot.teams import roster
from bot.teams.roster import RosterMember
from tests.factories import TEAM, Factory

MEMBERS = [
    RosterMember(
        object_id=f"00000000-0000-0000-0000-{n:012d}",
        username=f"member.{n}@contoso.test",
        display_name=f"Member {n}",
        email=None,
    )
    for n in range(20)
]


async def _record(factory: Factory, members: list[RosterMember]) -> None:
    async with factory.work() as uow:
        await roster.record_members(uow, team_id=TEAM, members=members)


async def test_two_syncs_of_one_roster_in_opposite_orders_both_record_it(
    factory: Factory,
) -> None:
    await factory.standard_team()
    await asyncio.gather(_record(factory, MEMBERS), _record(factory, MEMBERS[::-1]))
    async with factory.work() as uow:
        users = await uow.session.scalar(select(func.count()).select_from(User))
        members = await uow.session.scalar(select(func.count()).select_from(TeamMember))
    assert (users, members) == (20, 20)

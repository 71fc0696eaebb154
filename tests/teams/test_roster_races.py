"""Roster syncs that race: two member lists of one team, in opposite orders, recorded at once.
Each sync holds every member's lock until it commits (`bot.directory.users.upsert_user`), so on
PostgreSQL two syncs taking them in different orders deadlocked; sorted, one waits for the other.
Two syncs of a new team's channels at once give each channel one set of default rules. SQLite's
writers take turns, and run the same tests."""

import asyncio

from sqlalchemy import func, select

from bot.db.tables import EventDefinition, TeamMember, User
from bot.events.notification_rules import DEFAULT_RULES
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


async def _sync(factory: Factory, channels: list[tuple[str, str]]) -> None:
    fetched = roster.TeamRoster(
        team_id=TEAM, name="Team A", tenant_id=None, group_id=None, channels=channels
    )
    reference = {"serviceUrl": "https://smba.example/", "conversation": {"id": TEAM}}
    async with factory.work() as uow:
        await roster.record_team(uow, roster=fetched, turn_reference=reference)


async def test_two_syncs_of_a_new_team_at_once_give_each_channel_one_set_of_rules(
    factory: Factory,
) -> None:
    channels = [(f"19:channel-{n}@thread.tacv2", f"Channel {n}") for n in range(5)]
    await asyncio.gather(_sync(factory, channels), _sync(factory, channels[::-1]))
    async with factory.work() as uow:
        per_channel = await uow.session.execute(
            select(EventDefinition.channel_id, func.count()).group_by(EventDefinition.channel_id)
        )
        counts = [count for _, count in per_channel.all()]
    assert counts == [len(DEFAULT_RULES)] * len(channels)

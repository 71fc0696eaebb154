"""Fixtures of the generated tests: the two-team world the cross-team tests probe, made for each
test, since Team A's own requests there change its rows."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpServer
from sqlalchemy import select

from bot.clock import FrozenClock
from bot.db.tables import Channel, FieldValue, Project
from tests.factories import CHANNEL, TEAM, Factory
from tests.generated.cross_team_world import (
    ALPHA,
    CHANNEL_B,
    TEAM_B,
    World,
    discuss,
    make_side,
)
from tests.teams.connector import Connector


@pytest.fixture
async def world(
    client: TestClient, factory: Factory, clock: FrozenClock, aiohttp_server: AiohttpServer
) -> World:
    ada = await factory.member(f"Ada {ALPHA}")
    await factory.team(TEAM_B, name="Team B", group_id="b0b0b0b0-0000-0000-0000-000000000002")
    await factory.channel(CHANNEL_B, team_id=TEAM_B, name="Team B channel")
    eve = await factory.member("Eve", team_id=TEAM_B)
    a = await make_side(client, factory, ada, TEAM, CHANNEL, ALPHA)
    b = await make_side(client, factory, eve, TEAM_B, CHANNEL_B, "BRAVO")
    teams = await aiohttp_server(Connector(team_id=TEAM).app())
    for side in (a, b):
        await discuss(client, factory, side, str(teams.make_url("")).rstrip("/"))
    async with factory.work() as uow:
        session = uow.session
        team_pk = await session.scalar(select(Channel.team_id).where(Channel.id == a.channel_pk))
        statuses = list(
            await session.scalars(
                select(FieldValue.id).where(FieldValue.channel_id == a.channel_pk)
            )
        )
        projects = list(
            await session.scalars(select(Project.id).where(Project.channel_id == a.channel_pk))
        )
    assert team_pk is not None
    ids_a = [
        a.bug["_id"],
        a.task["_id"],
        a.status["_id"],
        a.priority["_id"],
        a.severity["_id"],
        statuses[0],
        projects[0],
        ada.user.id,
        statuses[0],
        projects[0],
        a.project["_id"],
        a.synced_project["_id"],
        a.mapping["_id"],
        a.definition["_id"],
        a.attachment["_id"],
        a.discussed_bug["_id"],
        a.discussed_task["_id"],
        a.delivery["_id"],
    ]
    secrets = {ALPHA, TEAM, CHANNEL, team_pk, a.channel_pk, *ids_a, *statuses, *projects}
    secrets.add(a.definition["secret"])
    secrets.add(a.delivery["webhookId"])
    # Whatever a probe could change would then show in updated_at too.
    clock.advance(timedelta(minutes=5))
    return World(a=a, b=b, eve=eve, ids_a=ids_a, secrets=secrets)

"""The discussion rig: the real app, the local connector with Team A installed through the bot,
and Ada signed in to the REST API as the member roster sync made her."""

from collections.abc import AsyncIterator
from typing import Any

import pytest
from pytest_aiohttp import AiohttpClient, AiohttpServer
from sqlalchemy import update

from bot.app import create_app
from bot.clock import FrozenClock
from bot.db.tables import ConversationReference
from bot.directory.users import find_user, user_out
from tests.discussions.helpers import Desk
from tests.factories import CHANNEL, TEAM, Factory, Member
from tests.teams.activities import ADA, GRACE, LIN, installed
from tests.teams.connector import Connector

# TEAMS_WAIT_SECONDS: a hanging connector costs a test this long; a first post on a loaded
# machine (a new client session and connection) once took over 1 s.
WAIT_SECONDS = 3


@pytest.fixture
def connector() -> Connector:
    return Connector(
        team_id=TEAM, channels={TEAM: None, CHANNEL: "Bugs"}, members=[ADA, GRACE, LIN]
    )


@pytest.fixture
def teams_wait_seconds() -> float:
    """TEAMS_WAIT_SECONDS of the desk's app; a test module may override it."""
    return WAIT_SECONDS


@pytest.fixture
async def desk(
    db: str,
    teams_wait_seconds: float,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
    aiohttp_server: AiohttpServer,
    connector: Connector,
    factory: Factory,
) -> AsyncIterator[Desk]:
    server = await aiohttp_server(connector.app())
    service_url = str(server.make_url("")).rstrip("/")
    settings = make_settings(db, JOBS_POLL_SECONDS=0, TEAMS_WAIT_SECONDS=teams_wait_seconds)
    client = await aiohttp_client(create_app(settings, clock=clock))
    assert (await client.post("/api/messages", json=installed(service_url))).status == 200
    connector.calls.clear()
    desk = Desk(client, connector, service_url, factory, await _member(factory, ADA.object_id))
    yield desk
    if connector.stall is not None:
        connector.stall.set()  # let a hanging request end before the server closes


async def _member(factory: Factory, object_id: str) -> Member:
    async with factory.work() as uow:
        user = user_out(await find_user(uow, ref=object_id))
    return Member(user=user, cookie=await factory.session(user))


async def move_connector(factory: Factory, service_url: str) -> None:
    """Point the channel's stored reference at another connector (a dead one, say)."""
    async with factory.work() as uow:
        row = await uow.session.get(ConversationReference, CHANNEL)
        assert row is not None
        reference: dict[str, Any] = {**row.reference, "serviceUrl": service_url}
        await uow.session.execute(
            update(ConversationReference)
            .where(ConversationReference.conversation_id == CHANNEL)
            .values(service_url=service_url, reference=reference)
        )

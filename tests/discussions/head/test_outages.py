"""A connector that throttles or is down delays a thread's refresh: none lost, none doubled."""

from datetime import timedelta

import pytest
from aiohttp.test_utils import TestServer
from pytest_aiohttp import AiohttpServer
from sqlalchemy import select

from bot.db.tables import Job
from bot.discussions.refresh_job import REFRESH
from tests.discussions.head.threads import WINDOW, Rig, facts, messages
from tests.teams.connector import Connector


@pytest.fixture
async def connector_server(connector: Connector, aiohttp_server: AiohttpServer) -> TestServer:
    return await aiohttp_server(connector.app())


@pytest.fixture
def service_url(connector_server: TestServer) -> str:
    return str(connector_server.make_url("")).rstrip("/")


def told(rig: Rig) -> list[str]:
    """The replies Teams took (a refused one is recorded too, then answered with an error)."""
    return [call.body["text"] for call in rig.replies()]


async def test_a_throttled_refresh_waits_for_retry_after_then_tells_everything_once(
    rig: Rig,
) -> None:
    bug, _ = await rig.discussed_bug(priority="Normal")
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    rig.connector.refusals.append((429, {"Retry-After": "7"}))
    await rig.turn(WINDOW)
    assert (len(rig.updates()), told(rig)) == (1, [])  # the card's update was refused

    await rig.patch(rig.grace, bug["_id"], priority="High")  # joins the waiting refresh
    await rig.turn(timedelta(seconds=6))
    assert len(rig.updates()) == 1
    await rig.turn(timedelta(seconds=1))

    assert len(rig.updates()) == 2
    assert facts(rig.updates()[-1].body["attachments"][0]["content"])["Priority"] == "High"
    assert told(rig) == [
        "Ada Lovelace moved it to In Progress. Grace Hopper changed priority Normal → High"
    ]
    await rig.turn(timedelta(minutes=1))
    assert (len(rig.updates()), len(told(rig))) == (2, 1)
    assert len(await messages(rig.factory, bug["_id"])) == 2


async def test_a_throttled_reply_is_sent_once_when_teams_takes_it(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    # The card's update goes through; the reply is throttled.
    rig.connector.refusals += [(200, {}), (429, {"Retry-After": "3"})]
    await rig.turn(WINDOW)
    await rig.turn(timedelta(seconds=3))

    assert told(rig) == ["Ada Lovelace moved it to In Progress"] * 2  # refused, then taken
    stored = await messages(rig.factory, bug["_id"])
    assert [message.body for message in stored[1:]] == ["Ada Lovelace moved it to In Progress"]
    await rig.turn(timedelta(minutes=1))
    assert len(told(rig)) == 2


async def test_a_connector_that_is_down_delays_the_refresh_and_loses_nothing(
    rig: Rig, connector_server: TestServer, connector: Connector, aiohttp_server: AiohttpServer
) -> None:
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    port = connector_server.port
    await connector_server.close()

    await rig.turn(WINDOW)
    await rig.patch(rig.grace, bug["_id"], assignedTo=[rig.lin.user.id])
    await rig.turn(timedelta(seconds=5))  # the first retry, still down
    async with rig.factory.work(write=False) as uow:
        [job] = await uow.entities(select(Job).where(Job.kind == REFRESH.name))
    assert (job.state, job.attempts) == ("queued", 2)
    assert job.last_error is not None and "unreachable" in job.last_error

    await aiohttp_server(connector.app(), port=port)  # back
    await rig.turn(timedelta(seconds=10))
    assert len(rig.updates()) == 1
    assert told(rig) == [
        "Ada Lovelace moved it to In Progress. Grace Hopper assigned it to Lin Chen"
    ]
    await rig.turn(timedelta(minutes=1))
    assert (len(rig.updates()), len(told(rig))) == (1, 1)

"""Nothing lost, nothing repeated without cause: a connector down for half an hour, two app
processes on one database, and a process dying between a post and its record."""

import asyncio
from datetime import timedelta

import pytest
from aiohttp.test_utils import TestServer
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.discussions.refresh import ThreadRefresher
from bot.keys import WORKER
from tests.cards.samples import root_title
from tests.discussions.head.threads import WINDOW, Rig
from tests.notifications.rules import notify_on, replies, root_card, thread_starts
from tests.teams.connector import Connector


@pytest.fixture
async def connector_server(connector: Connector, aiohttp_server: AiohttpServer) -> TestServer:
    return await aiohttp_server(connector.app())


@pytest.fixture
def service_url(connector_server: TestServer) -> str:
    return str(connector_server.make_url("")).rstrip("/")


async def digests_off(rig: Rig) -> None:
    response = await rig.bot.patch(
        "/api/channel/settings", json={"digestWindowSeconds": 0}, headers=rig.ada.in_channel()
    )
    assert response.status == 200, await response.text()


def titles(rig: Rig) -> list[str]:
    return sorted(root_title(root_card(call)) for call in thread_starts(rig.connector.calls))


async def test_a_connector_down_for_half_an_hour_loses_no_notification(
    rig: Rig, connector_server: TestServer, connector: Connector, aiohttp_server: AiohttpServer
) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    port = connector_server.port
    await connector_server.close()
    for n in range(3):
        await rig.bug(name=f"Made while Teams was away {n}")
    for _ in range(6):  # retried with backoff for half an hour
        await rig.turn(timedelta(minutes=5))
    assert rig.connector.calls == []

    await aiohttp_server(connector.app(), port=port)  # back
    for _ in range(4):
        await rig.turn(timedelta(minutes=10))
    assert titles(rig) == [f"Bug #{n + 1}: Made while Teams was away {n}" for n in range(3)]
    await rig.turn(timedelta(hours=1))
    assert len(thread_starts(rig.connector.calls)) == 3


async def test_two_processes_post_each_notification_once(
    rig: Rig,
    db: str,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
) -> None:
    other = await aiohttp_client(create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock))
    workers = [rig.bot.app[WORKER], other.app[WORKER]]
    await digests_off(rig)
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await notify_on(rig.bot, rig.ada)
    bugs = [await rig.bug(name=f"Bug {n}") for n in range(4)]

    async def both_turns(after: timedelta) -> None:
        clock.advance(after)
        await asyncio.gather(*(worker.run_once() for worker in workers))

    await both_turns(timedelta(0))
    await both_turns(WINDOW)
    await both_turns(WINDOW)
    assert titles(rig) == sorted(f"Bug #{n + 1}: Bug {n}" for n in range(4))
    for bug in bugs:
        await rig.patch(rig.ada, bug["_id"], priority="High")
    await both_turns(timedelta(0))
    await both_turns(WINDOW)
    await both_turns(WINDOW)
    assert len(replies(rig.connector.calls)) == 4
    assert len(thread_starts(rig.connector.calls)) == 4


async def test_a_process_dying_between_a_post_and_its_record_repeats_that_one_only(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    record = ThreadRefresher._close
    died = []

    async def dies_once(self: ThreadRefresher, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        if not died:
            died.append(True)
            raise ConnectionResetError(
                "the process was killed"
            )  # after the post, before its record
        await record(self, *args, **kwargs)

    monkeypatch.setattr(ThreadRefresher, "_close", dies_once)
    await rig.bug(name="Posted twice at most")
    await rig.bug(name="Posted once")
    await rig.turn()
    await rig.turn(WINDOW)
    for _ in range(3):
        await rig.turn(timedelta(minutes=1))  # the job's lease and backoff run out; it runs again

    posts = [root_title(root_card(call)) for call in thread_starts(rig.connector.calls)]
    assert len(posts) == 3  # one of the two posted again, the other once
    assert len(set(posts)) == 2

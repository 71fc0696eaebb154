"""The console's rig: the real app served over TCP (no app id: the Emulator's mode) with the
demo seeded, and a console talking to it through its own connector."""

from collections.abc import AsyncIterator
from datetime import timedelta

import aiohttp
import pytest
from pytest_aiohttp import AiohttpServer

from bot.app import create_app
from bot.cli.chat.connector import LocalConnector
from bot.cli.chat.console import Console
from bot.clock import FrozenClock
from bot.demo import DemoOut, seed_demo
from tests.factories import Factory


@pytest.fixture
async def demo(factory: Factory) -> DemoOut:
    async with factory.work() as uow:
        return await seed_demo(uow, session_ttl=timedelta(hours=1))


@pytest.fixture
async def app_url(
    db: str,
    make_settings,  # noqa: ANN001
    clock: FrozenClock,
    aiohttp_server: AiohttpServer,
    demo: DemoOut,
) -> str:
    settings = make_settings(db, JOBS_POLL_SECONDS=0)
    server = await aiohttp_server(create_app(settings, clock=clock))
    return str(server.make_url("")).rstrip("/")


@pytest.fixture
async def console(app_url: str) -> AsyncIterator[Console]:
    connector = LocalConnector()
    async with connector.serving() as service_url, aiohttp.ClientSession() as http:
        yield Console(http, app_url, service_url, connector)

"""Delivery tests: a loopback receiver the app may call, and a clock frozen at the wall clock's
time (Standard Webhooks' verifier compares the signed timestamp with the wall clock)."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from pytest_aiohttp import AiohttpServer

from bot.clock import FrozenClock
from bot.settings import Settings
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory, Member

ALLOWED = "127.0.0.1,localhost,::1"


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime.now(UTC).replace(microsecond=0))


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    """The worker runs only when a test runs its turns."""
    return make_settings(db, JOBS_POLL_SECONDS=0, WEBHOOK_ALLOWED_HOSTS=ALLOWED)


@pytest.fixture
async def receiver(aiohttp_server: AiohttpServer) -> AsyncIterator[Receiver]:
    receiver = Receiver()
    server = await aiohttp_server(receiver.app(), host="127.0.0.1")
    receiver.base_url = str(server.make_url("")).rstrip("/")
    yield receiver
    receiver.release.set()  # let a hanging request end before the server closes


@pytest.fixture
async def ada(factory: Factory) -> Member:
    return await factory.member("Ada")

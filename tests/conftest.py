"""Fixtures: both databases, test settings, a frozen clock, the real app, and data factories."""

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.settings import Settings
from tests import databases
from tests.factories import Factory

SECRET = "test-secret-key-0123456789abcdef0123456789"
START = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A migrated database of each kind, made once per run (PostgreSQL: dropped after)."""
    if request.param == "sqlite":
        url = databases.sqlite_url(tmp_path_factory.mktemp("sqlite"))
        databases.migrate_to_head(url)
        yield url
        return
    url = databases.create_postgres_database()
    try:
        databases.migrate_to_head(url)
        yield url
    finally:
        databases.drop_postgres_database(url)


@pytest.fixture
async def db(database_url: str) -> str:
    """The database URL, emptied for this test."""
    await databases.empty_all_tables(database_url)
    return database_url


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
def make_settings(tmp_path: Path):  # noqa: ANN201 - a factory
    def make(database_url: str, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "DATABASE_URL": database_url,
            "DATA_DIR": tmp_path,
            "SECRET_KEY": SECRET,
            "SSO_AUDIENCE": "api://tracker.test/11111111-2222-3333-4444-555555555555",
            # A test's app closing with a job in flight (a hanging receiver) waits this long.
            "SHUTDOWN_SECONDS": 2,
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    return make_settings(db)


@pytest.fixture
def app(settings: Settings, clock: FrozenClock) -> web.Application:
    return create_app(settings, clock=clock)


@pytest.fixture
async def client(app: web.Application, aiohttp_client) -> TestClient:  # noqa: ANN001
    """Served without aiohttp's access log, as `python app.py` serves it (`bot.web.server`)."""
    server = TestServer(app)
    await server.start_server(access_log=None)
    return await aiohttp_client(server)


@pytest.fixture
async def factory(db: str, clock: FrozenClock) -> AsyncIterator[Factory]:
    async with Factory.open(db, clock) as made:
        yield made

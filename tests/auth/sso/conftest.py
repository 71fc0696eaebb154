"""Fixtures of the Teams SSO tests: locally generated RSA keys, a local JWKS server publishing
them, and the app pointed at that server with the factories' tenant allowed."""

from collections.abc import Callable

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient, AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.settings import Settings
from tests.auth.jwks import JwksEndpoint, SigningKey
from tests.auth.sso.helpers import MakeClient
from tests.factories import TENANT

MakeSettings = Callable[..., Settings]


# Package-scoped: with the tests in several modules, each key is still generated once.
@pytest.fixture(scope="package")
def key() -> SigningKey:
    """The key the JWKS server publishes (generated once: RSA keygen is slow)."""
    return SigningKey.generate("key-a")


@pytest.fixture(scope="package")
def other_key() -> SigningKey:
    """A second key: an attacker's, or the next one after a rotation."""
    return SigningKey.generate("key-b")


@pytest.fixture
def jwks(key: SigningKey) -> JwksEndpoint:
    return JwksEndpoint([key])


@pytest.fixture
async def jwks_url(jwks: JwksEndpoint, aiohttp_server: AiohttpServer) -> str:
    server = await aiohttp_server(jwks.app())
    return str(server.make_url("/keys"))


@pytest.fixture
def settings(db: str, make_settings: MakeSettings, jwks_url: str) -> Settings:
    """Test settings pointing at the local JWKS server, with the factories' tenant allowed."""
    return make_settings(db, SSO_JWKS_URL=jwks_url, SSO_ALLOWED_TENANTS=TENANT)


@pytest.fixture
def make_client(
    db: str,
    make_settings: MakeSettings,
    jwks_url: str,
    clock: FrozenClock,
    aiohttp_client: AiohttpClient,
) -> MakeClient:
    """A client of an app built with other SSO settings."""

    async def make(**overrides: object) -> TestClient:
        values = {"SSO_JWKS_URL": jwks_url, "SSO_ALLOWED_TENANTS": TENANT, **overrides}
        return await aiohttp_client(create_app(make_settings(db, **values), clock=clock))

    return make

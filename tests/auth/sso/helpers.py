"""What the Teams SSO tests share: the sign-in request, the rows it may write, and the check
that a refused sign-in wrote nothing."""

from collections.abc import Awaitable, Callable

from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.db.tables import AuthToken, User
from tests.factories import Factory

OTHER_TENANT = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
SSO = "/api/auth/teams-sso"

MakeClient = Callable[..., Awaitable[TestClient]]


async def sign_in(client: TestClient, token: str) -> ClientResponse:
    return await client.post(SSO, json={"token": token})


async def stored_rows(factory: Factory) -> tuple[int, int]:
    """How many users and sessions/tokens the database holds."""
    async with factory.work() as uow:
        users = await uow.session.scalar(select(func.count()).select_from(User))
        tokens = await uow.session.scalar(select(func.count()).select_from(AuthToken))
    return users or 0, tokens or 0


async def assert_refused(
    response: ClientResponse,
    status: int,
    message: str,
    factory: Factory,
    rows: tuple[int, int] = (0, 0),
) -> None:
    """The refusal a user sees, and nothing written: no cookie, no new user or session row."""
    assert response.status == status
    assert await response.json() == {"error": message}
    assert "Set-Cookie" not in response.headers
    assert await stored_rows(factory) == rows

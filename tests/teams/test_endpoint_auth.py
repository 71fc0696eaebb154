"""With an app id, only requests signed by the Bot Framework for this bot are served; others 401."""

import time

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Team
from bot.teams.transport.endpoint import UNAUTHORIZED
from tests.auth.jwks import SigningKey, unsigned_token
from tests.factories import Factory
from tests.teams.activities import BotFrameworkIssuer, installed
from tests.teams.conftest import CONNECTOR_TOKEN
from tests.teams.connector import Connector

HOUR = 3600


async def post_signed(client: TestClient, activity: dict, authorization: str | None):  # noqa: ANN201
    headers = {"Authorization": authorization} if authorization is not None else {}
    return await client.post("/api/messages", json=activity, headers=headers)


async def test_a_signed_activity_is_served_and_the_bot_calls_back_with_its_token(
    verified_bot: TestClient,
    issuer: BotFrameworkIssuer,
    service_url: str,
    connector: Connector,
    factory: Factory,
) -> None:
    token = issuer.token(service_url)
    response = await post_signed(verified_bot, installed(service_url), f"Bearer {token}")
    assert response.status == 200, await response.text()
    assert connector.calls
    assert {call.authorization for call in connector.calls} == {f"Bearer {CONNECTOR_TOKEN}"}
    async with factory.work() as uow:
        assert await uow.session.scalar(select(Team.id)) is not None


@pytest.fixture(scope="module")
def impostor_key(bot_key: SigningKey) -> SigningKey:
    """Another key published under the real key's id: its signatures must not verify."""
    return SigningKey.generate(bot_key.kid)


def bad_headers(
    issuer: BotFrameworkIssuer, service_url: str, impostor: SigningKey
) -> dict[str, str | None]:
    now = int(time.time())
    unknown = SigningKey(kid="other", private=impostor.private)
    return {
        "no header": None,
        "empty": "",
        "not a bearer": "Basic dXNlcjpwYXNz",
        "garbage": "Bearer not-a-jwt",
        "one word": "garbage",
        "unsigned": "Bearer "
        + unsigned_token({"iss": "https://api.botframework.com"}, kid="bot-key"),
        "wrong signature": f"Bearer {issuer.token(service_url, key=impostor)}",
        "unknown key": f"Bearer {issuer.token(service_url, key=unknown)}",
        "wrong audience": f"Bearer {issuer.token(service_url, aud='someone-elses-bot')}",
        "no audience": f"Bearer {issuer.token(service_url, aud=None)}",
        "wrong issuer": f"Bearer {issuer.token(service_url, iss='https://evil.example')}",
        "expired": f"Bearer {issuer.token(service_url, nbf=now - 3 * HOUR, exp=now - 2 * HOUR)}",
        "no expiry": f"Bearer {issuer.token(service_url, exp=None)}",
        "other service url": f"Bearer {issuer.token('https://elsewhere.example')}",
    }


CASES = [
    "no header",
    "empty",
    "not a bearer",
    "garbage",
    "one word",
    "unsigned",
    "wrong signature",
    "unknown key",
    "wrong audience",
    "no audience",
    "wrong issuer",
    "expired",
    "no expiry",
    "other service url",
]


@pytest.mark.parametrize("case", CASES)
async def test_a_request_without_a_valid_bot_framework_token_is_401_and_changes_nothing(
    case: str,
    verified_bot: TestClient,
    issuer: BotFrameworkIssuer,
    service_url: str,
    connector: Connector,
    factory: Factory,
    impostor_key: SigningKey,
) -> None:
    authorization = bad_headers(issuer, service_url, impostor_key)[case]
    response = await post_signed(verified_bot, installed(service_url), authorization)
    assert response.status == 401, await response.text()
    assert await response.json() == {"error": UNAUTHORIZED}
    assert connector.calls == []
    async with factory.work() as uow:
        assert await uow.session.scalar(select(Team.id)) is None


async def test_without_an_app_id_no_token_is_needed(bot: TestClient, service_url: str) -> None:
    response = await post_signed(bot, installed(service_url), None)
    assert response.status == 200

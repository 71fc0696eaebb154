"""Every way a request proves who it is, and every way that proof is refused."""

from datetime import timedelta

from sqlalchemy import select

from bot.auth.service import BAD_CREDENTIALS, NO_CREDENTIALS, hash_secret
from bot.db.tables import AuthToken
from tests.factories import Factory


async def test_session_cookie_identifies_the_caller(client, factory: Factory) -> None:
    member = await factory.member("Ada Lovelace")
    response = await client.get("/api/me", headers=member.headers)
    assert response.status == 200
    assert await response.json() == {
        "_id": member.user.id,
        "sourceId": member.user.source_id,
        "displayName": "Ada Lovelace",
        "email": "ada.lovelace@contoso.test",
        "username": "ada.lovelace@contoso.test",
        "source": "Microsoft.Graph.User",
    }


async def test_missing_credentials_answer_401(client, factory: Factory) -> None:
    response = await client.get("/api/me")
    assert response.status == 401
    assert await response.json() == {"error": NO_CREDENTIALS}


async def test_unknown_session_answers_401(client, factory: Factory) -> None:
    response = await client.get("/api/me", headers={"Cookie": "graphNodeCookie=not-a-session"})
    assert response.status == 401
    assert await response.json() == {"error": BAD_CREDENTIALS}


async def test_expired_session_answers_401(client, factory: Factory, clock) -> None:
    member = await factory.member()
    clock.advance(timedelta(hours=8, seconds=1))
    response = await client.get("/api/me", headers=member.headers)
    assert response.status == 401
    assert await response.json() == {"error": BAD_CREDENTIALS}


async def test_session_expiry_slides_with_use(client, factory: Factory, clock) -> None:
    member = await factory.member()
    for _ in range(3):  # 3 × 7 h of activity outlives the 8 h lifetime
        clock.advance(timedelta(hours=7))
        assert (await client.get("/api/me", headers=member.headers)).status == 200
    clock.advance(timedelta(hours=8, minutes=1))
    assert (await client.get("/api/me", headers=member.headers)).status == 401


async def test_sign_out_revokes_the_session(client, factory: Factory) -> None:
    member = await factory.member()
    response = await client.delete("/api/auth/session", headers=member.headers)
    assert response.status == 204
    assert "graphNodeCookie" in response.headers.get("Set-Cookie", "")
    again = await client.get("/api/me", headers=member.headers)
    assert again.status == 401
    assert await again.json() == {"error": BAD_CREDENTIALS}


async def test_sign_out_leaves_other_sessions_alive(client, factory: Factory) -> None:
    member = await factory.member()
    other_cookie = await factory.session(member.user)
    await client.delete("/api/auth/session", headers=member.headers)
    response = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={other_cookie}"})
    assert response.status == 200


async def test_bearer_api_token_identifies_the_caller(client, factory: Factory) -> None:
    user = await factory.user("Grace Hopper")
    token = await factory.api_token(user)
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 200
    assert (await response.json())["displayName"] == "Grace Hopper"


async def test_expired_api_token_answers_401(client, factory: Factory, clock) -> None:
    user = await factory.user()
    token = await factory.api_token(user, ttl=timedelta(days=90))
    clock.advance(timedelta(days=89))
    assert (await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})).status == 200
    clock.advance(timedelta(days=1))  # API tokens do not slide
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status == 401
    assert await response.json() == {"error": BAD_CREDENTIALS}


async def test_revoked_api_token_answers_401(client, factory: Factory) -> None:
    user = await factory.user()
    token = await factory.api_token(user)
    bearer = {"Authorization": f"Bearer {token}"}
    assert (await client.delete("/api/auth/session", headers=bearer)).status == 204
    assert (await client.get("/api/me", headers=bearer)).status == 401


async def test_unknown_bearer_token_answers_401(client, factory: Factory) -> None:
    response = await client.get("/api/me", headers={"Authorization": "Bearer nope"})
    assert response.status == 401
    assert await response.json() == {"error": BAD_CREDENTIALS}


async def test_secrets_are_stored_only_as_hashes(factory: Factory) -> None:
    user = await factory.user()
    cookie = await factory.session(user)
    async with factory.work() as uow:
        stored = (await uow.session.execute(select(AuthToken.token_hash))).scalars().all()
    assert stored == [hash_secret(cookie)]
    assert cookie not in stored

"""A tab in Teams on the web cannot keep the session cookie: the sign-in's `sessionToken`, sent
as a Bearer token, acts as the cookie does on every route, and ends as the cookie does."""

from datetime import timedelta

from bot.directory.users import add_member
from tests.auth.jwks import entra_claims
from tests.auth.sso.helpers import sign_in
from tests.factories import CHANNEL, TEAM

BAD_CREDENTIALS = {"error": "The session or token is unknown, expired or revoked."}


async def signed_in(client, key, clock) -> tuple[dict, dict[str, str]]:  # noqa: ANN001
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    assert response.status == 200, await response.text()
    body = await response.json()
    client.session.cookie_jar.clear()  # a browser that blocks third-party cookies keeps none
    return body, {"Authorization": f"Bearer {body['sessionToken']}"}


async def test_the_session_token_as_bearer_is_the_signed_in_user(client, key, clock) -> None:
    body, bearer = await signed_in(client, key, clock)
    me = await client.get("/api/me", headers=bearer)
    assert me.status == 200
    assert (await me.json())["_id"] == body["_id"]


async def test_the_session_token_opens_channel_routes_as_the_cookie_does(
    client, factory, key, clock
) -> None:
    body, bearer = await signed_in(client, key, clock)
    await factory.standard_team()
    async with factory.work() as uow:
        await add_member(uow, team_id=TEAM, user_ref=body["_id"])
    headers = {**bearer, "x-svc-teamid": TEAM, "x-svc-channelId": CHANNEL}
    created = await client.post("/odata/bugs", json={"name": "From the tab"}, headers=headers)
    assert created.status == 201, await created.text()
    listed = await client.get("/api/bugs", headers=headers)
    assert [bug["name"] for bug in (await listed.json())["value"]] == ["From the tab"]


async def test_an_expired_session_token_answers_401(client, key, clock) -> None:
    _body, bearer = await signed_in(client, key, clock)
    clock.advance(timedelta(hours=8, seconds=1))
    me = await client.get("/api/me", headers=bearer)
    assert (me.status, await me.json()) == (401, BAD_CREDENTIALS)


async def test_a_signed_out_session_token_answers_401(client, key, clock) -> None:
    _body, bearer = await signed_in(client, key, clock)
    out = await client.delete("/api/auth/session", headers=bearer)
    assert out.status == 204
    me = await client.get("/api/me", headers=bearer)
    assert (me.status, await me.json()) == (401, BAD_CREDENTIALS)


async def test_a_made_up_bearer_answers_401(client, key, clock) -> None:
    await signed_in(client, key, clock)
    me = await client.get("/api/me", headers={"Authorization": "Bearer not-a-session"})
    assert (me.status, await me.json()) == (401, BAD_CREDENTIALS)

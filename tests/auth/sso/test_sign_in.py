"""Teams SSO sign-in end to end: a valid token signs the user in (a user row, a session cookie)
and a second sign-in updates them; the token's identity, its tenant and the request body are
checked before anything is written."""

import pytest
from sqlalchemy import select

from bot.db.tables import User
from tests.auth.jwks import ISSUER, OBJECT_ID, entra_claims
from tests.auth.sso.helpers import (
    OTHER_TENANT,
    SSO,
    MakeClient,
    assert_refused,
    sign_in,
    stored_rows,
)
from tests.factories import TENANT

NO_IDENTITY = "The SSO token lacks the oid or preferred_username claim."


# Signing in


async def test_valid_token_signs_in_and_returns_the_user(client, factory, key, clock) -> None:
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    assert response.status == 200
    async with factory.work() as uow:
        user_id = await uow.session.scalar(select(User.id))
    body = await response.json()
    assert body == {
        "_id": user_id,
        "sourceId": OBJECT_ID,
        "displayName": "Ada Lovelace",
        "email": "ada@contoso.test",
        "username": "ada.lovelace@contoso.test",
        "source": "Microsoft.Graph.User",
        "sessionToken": response.cookies["graphNodeCookie"].value,
    }
    assert await stored_rows(factory) == (1, 1)


async def test_sign_in_sets_a_secure_cross_site_session_cookie(client, factory, key, clock) -> None:
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    cookie = response.cookies["graphNodeCookie"]
    assert cookie.value
    assert cookie["httponly"] is True
    assert cookie["secure"] is True
    assert cookie["samesite"] == "None"  # the tab runs in the Teams iframe
    assert cookie["path"] == "/"
    assert cookie["max-age"] == str(8 * 3600)


async def test_sign_in_cookie_identifies_the_user_on_api_me(client, factory, key, clock) -> None:
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    user = await response.json()
    del user["sessionToken"]
    cookie = response.cookies["graphNodeCookie"].value
    client.session.cookie_jar.clear()  # send only what a browser would: the cookie itself
    me = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"})
    assert me.status == 200
    assert await me.json() == user


async def test_second_sign_in_updates_the_user_instead_of_adding_one(
    client, factory, key, clock
) -> None:
    first = await (await sign_in(client, key.sign(entra_claims(clock.now())))).json()
    renamed = entra_claims(clock.now(), name="Ada King", email="ada.king@contoso.test")
    response = await sign_in(client, key.sign(renamed))
    assert response.status == 200
    second = await response.json()
    assert second == {
        **first,
        "displayName": "Ada King",
        "email": "ada.king@contoso.test",
        "sessionToken": second["sessionToken"],
    }
    assert second["sessionToken"] != first["sessionToken"]  # a session of its own
    assert await stored_rows(factory) == (1, 2)  # one user, a session per sign-in


async def test_username_falls_back_to_upn(client, factory, key, clock) -> None:
    claims = entra_claims(clock.now(), preferred_username=None, upn="Ada@Contoso.test", name=None)
    response = await sign_in(client, key.sign(claims))
    assert response.status == 200
    body = await response.json()
    assert (body["username"], body["displayName"]) == ("ada@contoso.test", "Ada@Contoso.test")


@pytest.mark.parametrize("dropped", [("oid",), ("preferred_username",), ("oid", "upn")])
async def test_token_without_user_identity_answers_401(
    client, factory, key, clock, dropped
) -> None:
    claims = entra_claims(clock.now(), **dict.fromkeys(dropped))
    await assert_refused(await sign_in(client, key.sign(claims)), 401, NO_IDENTITY, factory)


async def test_username_that_is_not_a_upn_answers_401(client, factory, key, clock) -> None:
    claims = entra_claims(clock.now(), preferred_username="not-a-upn")
    message = (
        "The SSO token's identity is unusable: "
        "username: a user principal name looks like user@domain"
    )
    await assert_refused(await sign_in(client, key.sign(claims)), 401, message, factory)


async def test_upn_held_by_another_object_id_answers_409(client, factory, key, clock) -> None:
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    impostor = entra_claims(clock.now(), oid="99999999-9999-9999-9999-999999999999")
    response = await sign_in(client, key.sign(impostor))
    assert response.status == 409
    assert await stored_rows(factory) == (1, 1)


# Tenants


async def test_token_without_tenant_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now(), tid=None))
    await assert_refused(
        await sign_in(client, token), 401, "The SSO token has no tenant (tid).", factory
    )


async def test_tenant_not_in_allowed_tenants_answers_403(client, factory, key, clock) -> None:
    claims = entra_claims(clock.now(), tid=OTHER_TENANT, iss=ISSUER.format(tenantid=OTHER_TENANT))
    message = f"Tenant '{OTHER_TENANT}' is not allowed to sign in."
    await assert_refused(await sign_in(client, key.sign(claims)), 403, message, factory)


async def test_without_allowed_tenants_a_tenant_with_no_team_answers_403(
    make_client: MakeClient, factory, key, clock
) -> None:
    await factory.team(tenant_id=OTHER_TENANT)  # a team, but of another tenant
    client = await make_client(SSO_ALLOWED_TENANTS="")
    message = f"Tenant '{TENANT}' has no team with this app installed."
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    await assert_refused(response, 403, message, factory)


async def test_without_allowed_tenants_a_tenant_with_a_team_signs_in(
    make_client: MakeClient, factory, key, clock
) -> None:
    await factory.team(tenant_id=TENANT)
    client = await make_client(SSO_ALLOWED_TENANTS="")
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    assert response.status == 200
    assert (await response.json())["sourceId"] == OBJECT_ID


# The request body


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "token: Field required"),
        ({"token": 42}, "token: Input should be a valid string"),
        ({"token": ""}, "token: String should have at least 1 character"),
        ([], "body: Input should be a valid dictionary or instance of TeamsSsoIn"),
    ],
)
async def test_body_without_a_token_string_answers_400(client, factory, body, message) -> None:
    await assert_refused(await client.post(SSO, json=body), 400, message, factory)


async def test_malformed_json_answers_400(client, factory) -> None:
    response = await client.post(
        SSO, data=b'{"token": ', headers={"Content-Type": "application/json"}
    )
    assert response.status == 400
    body = await response.json()
    assert list(body) == ["error"]
    assert body["error"].startswith("Malformed JSON: ")
    assert await stored_rows(factory) == (0, 0)


async def test_wrong_content_type_answers_415(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now()))
    response = await client.post(
        SSO, data=f"token={token}", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    await assert_refused(response, 415, "Content-Type must be application/json.", factory)

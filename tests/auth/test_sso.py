"""Teams SSO sign-in end to end, against a local JWKS server and locally generated RSA keys."""

from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
from aiohttp import ClientResponse, web
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpClient, AiohttpServer
from sqlalchemy import func, select

from bot.app import create_app
from bot.auth.sso import KEYS_MAX_AGE, REFETCH_AFTER
from bot.clock import FrozenClock
from bot.db.tables import AuthToken, User
from bot.settings import Settings
from tests.auth.jwks import (
    AUDIENCE,
    ISSUER,
    OBJECT_ID,
    JwksEndpoint,
    SigningKey,
    entra_claims,
    hs256_token,
    unsigned_token,
)
from tests.factories import TENANT, Factory

OTHER_TENANT = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
SSO = "/api/auth/teams-sso"
SKEW = timedelta(minutes=5)

INVALID_JWT = "The SSO token is not a valid JWT."
RS256_ONLY = "The SSO token must be RS256-signed with a key id."
BAD_SIGNATURE = "The SSO token signature is invalid."
UNKNOWN_KEY = "Token signed with an unknown key."
WRONG_ISSUER = "The SSO token has the wrong issuer."
WRONG_AUDIENCE = "The SSO token was issued for another application."
EXPIRED = "The SSO token has expired."
NOT_YET_VALID = "The SSO token is not valid yet."
NO_IDENTITY = "The SSO token lacks the oid or preferred_username claim."
KEYS_UNAVAILABLE = "Cannot load the token signing keys; try again later."

MakeClient = Callable[..., Awaitable[TestClient]]
MakeSettings = Callable[..., Settings]


@pytest.fixture(scope="module")
def key() -> SigningKey:
    """The key the JWKS server publishes (generated once: RSA keygen is slow)."""
    return SigningKey.generate("key-a")


@pytest.fixture(scope="module")
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


# Signing in


async def test_valid_token_signs_in_and_returns_the_user(client, factory, key, clock) -> None:
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    assert response.status == 200
    async with factory.work() as uow:
        user_id = await uow.session.scalar(select(User.id))
    assert await response.json() == {
        "_id": user_id,
        "sourceId": OBJECT_ID,
        "displayName": "Ada Lovelace",
        "email": "ada@contoso.test",
        "username": "ada.lovelace@contoso.test",
        "source": "Microsoft.Graph.User",
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
    assert await response.json() == {
        **first,
        "displayName": "Ada King",
        "email": "ada.king@contoso.test",
    }
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


# Signature and keys


async def test_token_signed_by_another_key_with_the_same_kid_answers_401(
    client, factory, key, other_key, clock
) -> None:
    forged = other_key.sign(entra_claims(clock.now()), kid=key.kid)
    await assert_refused(await sign_in(client, forged), 401, BAD_SIGNATURE, factory)


@pytest.mark.parametrize("alg", ["none", "HS256 with the public key", "HS256 with a secret"])
async def test_token_not_signed_with_rs256_answers_401(
    client, factory, key, jwks, clock, alg
) -> None:
    claims = entra_claims(clock.now())
    if alg == "none":
        token = unsigned_token(claims, kid=key.kid)
    elif alg == "HS256 with the public key":  # the classic algorithm-confusion attack
        token = hs256_token(claims, secret=key.public_pem(), kid=key.kid)
    else:
        token = hs256_token(claims, secret=b"s" * 32, kid=key.kid)
    await assert_refused(await sign_in(client, token), 401, RS256_ONLY, factory)
    assert jwks.fetches == 0


async def test_token_without_key_id_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now()), kid=None)
    await assert_refused(await sign_in(client, token), 401, RS256_ONLY, factory)


async def test_text_that_is_not_a_jwt_answers_401(client, factory) -> None:
    await assert_refused(await sign_in(client, "not-a-jwt"), 401, INVALID_JWT, factory)


async def test_signing_keys_are_cached_between_sign_ins(client, key, jwks, clock) -> None:
    for _ in range(3):
        assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    assert jwks.fetches == 1


async def test_signing_keys_are_fetched_again_after_a_day(client, key, jwks, clock) -> None:
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    clock.advance(KEYS_MAX_AGE)
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    assert jwks.fetches == 2


async def test_unknown_key_id_answers_401_and_refetches_at_most_once_per_window(
    client, factory, other_key, jwks, clock
) -> None:
    token = other_key.sign(entra_claims(clock.now()))
    await assert_refused(await sign_in(client, token), 401, UNKNOWN_KEY, factory)
    assert jwks.fetches == 1
    await assert_refused(await sign_in(client, token), 401, UNKNOWN_KEY, factory)
    assert jwks.fetches == 1  # inside the window: an unknown kid cannot hammer the JWKS server
    clock.advance(REFETCH_AFTER)
    await assert_refused(await sign_in(client, token), 401, UNKNOWN_KEY, factory)
    assert jwks.fetches == 2


async def test_rotated_key_is_accepted_once_the_refetch_window_has_passed(
    client, factory, other_key, jwks, key, clock
) -> None:
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    jwks.keys.append(other_key)  # published after our first fetch
    rotated = other_key.sign(entra_claims(clock.now()))
    await assert_refused(await sign_in(client, rotated), 401, UNKNOWN_KEY, factory, rows=(1, 1))
    clock.advance(REFETCH_AFTER)
    response = await sign_in(client, other_key.sign(entra_claims(clock.now())))
    assert response.status == 200
    assert jwks.fetches == 2
    assert await stored_rows(factory) == (1, 2)


async def test_jwks_server_error_answers_401(client, factory, key, jwks, clock) -> None:
    jwks.status = 500
    token = key.sign(entra_claims(clock.now()))
    await assert_refused(await sign_in(client, token), 401, KEYS_UNAVAILABLE, factory)


@pytest.mark.parametrize(
    "document", [[], "keys", {"keys": []}, {"keys": [{"kty": "RSA", "kid": "key-a"}]}]
)
async def test_jwks_document_that_is_not_a_key_set_answers_401(
    client, factory, key, jwks, clock, document
) -> None:
    jwks.document = document
    token = key.sign(entra_claims(clock.now()))
    await assert_refused(await sign_in(client, token), 401, KEYS_UNAVAILABLE, factory)


async def test_unreachable_jwks_server_answers_401(
    make_client: MakeClient, aiohttp_server: AiohttpServer, factory, key, clock
) -> None:
    gone = await aiohttp_server(web.Application())
    url = str(gone.make_url("/keys"))
    await gone.close()
    client = await make_client(SSO_JWKS_URL=url)
    token = key.sign(entra_claims(clock.now()))
    await assert_refused(await sign_in(client, token), 401, KEYS_UNAVAILABLE, factory)


async def test_failed_key_fetch_is_retried_on_the_next_sign_in(client, key, jwks, clock) -> None:
    jwks.status = 503
    token = key.sign(entra_claims(clock.now()))
    assert (await sign_in(client, token)).status == 401
    jwks.status = 200
    assert (await sign_in(client, token)).status == 200
    assert jwks.fetches == 2


# Issuer, audience and lifetime


@pytest.mark.parametrize(
    "issuer",
    [
        ISSUER.format(tenantid=OTHER_TENANT),  # another tenant's issuer than the token's tid
        f"https://sts.windows.net/{TENANT}/",  # a v1.0 issuer
        f"https://evil.example/{TENANT}/v2.0",
    ],
)
async def test_wrong_issuer_answers_401(client, factory, key, clock, issuer) -> None:
    token = key.sign(entra_claims(clock.now(), iss=issuer))
    await assert_refused(await sign_in(client, token), 401, WRONG_ISSUER, factory)


async def test_wrong_audience_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now(), aud="api://other.test/another-app"))
    await assert_refused(await sign_in(client, token), 401, WRONG_AUDIENCE, factory)


async def test_expired_token_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now()))
    clock.advance(timedelta(hours=1) + SKEW)
    await assert_refused(await sign_in(client, token), 401, EXPIRED, factory)


async def test_token_expired_within_the_clock_skew_is_accepted(client, key, clock) -> None:
    token = key.sign(entra_claims(clock.now()))
    clock.advance(timedelta(hours=1) + SKEW - timedelta(seconds=1))
    assert (await sign_in(client, token)).status == 200


async def test_token_not_yet_valid_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now() + SKEW + timedelta(seconds=1)))
    await assert_refused(await sign_in(client, token), 401, NOT_YET_VALID, factory)


async def test_token_from_an_issuer_clock_slightly_ahead_is_accepted(client, key, clock) -> None:
    token = key.sign(entra_claims(clock.now() + SKEW - timedelta(seconds=1)))
    assert (await sign_in(client, token)).status == 200


async def test_token_issued_in_the_future_without_nbf_answers_401(
    client, factory, key, clock
) -> None:
    claims = entra_claims(clock.now() + SKEW + timedelta(minutes=1), nbf=None)
    await assert_refused(await sign_in(client, key.sign(claims)), 401, NOT_YET_VALID, factory)


async def test_token_lifetime_follows_the_app_clock_not_the_system_clock(
    client, key, clock
) -> None:
    clock.advance(timedelta(days=3650))  # far past the machine's real time
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200


@pytest.mark.parametrize(
    ("claim", "value"),
    [("exp", "tomorrow"), ("exp", True), ("exp", 1e20), ("nbf", "soon"), ("iat", "now")],
)
async def test_token_with_a_time_claim_that_is_not_a_time_answers_401(
    client, factory, key, clock, claim, value
) -> None:
    token = key.sign(entra_claims(clock.now(), **{claim: value}))
    message = f"The SSO token's {claim} claim is not a time."
    await assert_refused(await sign_in(client, token), 401, message, factory)


async def test_token_without_expiry_answers_401(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now(), exp=None))
    message = 'The SSO token is invalid: Token is missing the "exp" claim.'
    await assert_refused(await sign_in(client, token), 401, message, factory)


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


# Configuration


async def test_sso_without_audience_or_app_id_answers_401(
    make_client: MakeClient, factory, key, jwks, clock
) -> None:
    client = await make_client(SSO_AUDIENCE="", MicrosoftAppId="")
    message = "Teams SSO is not configured: set SSO_AUDIENCE or MicrosoftAppId."
    response = await sign_in(client, key.sign(entra_claims(clock.now())))
    await assert_refused(response, 401, message, factory)
    assert jwks.fetches == 0


async def test_bot_app_id_is_the_audience_when_sso_audience_is_unset(
    make_client: MakeClient, factory, key, clock
) -> None:
    app_id = "33333333-4444-5555-6666-777777777777"
    client = await make_client(SSO_AUDIENCE="", MicrosoftAppId=app_id)
    assert (await sign_in(client, key.sign(entra_claims(clock.now(), aud=app_id)))).status == 200
    response = await sign_in(client, key.sign(entra_claims(clock.now(), aud=AUDIENCE)))
    await assert_refused(response, 401, WRONG_AUDIENCE, factory, rows=(1, 1))


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

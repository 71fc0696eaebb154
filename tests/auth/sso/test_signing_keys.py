"""Teams SSO token signatures and signing keys: only RS256 with a published key id is accepted;
the JWKS document is cached, fetched again after a day, and refetched for an unknown key id at
most once per window; a JWKS server that fails refuses the sign-in."""

import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpServer

from bot.auth.key_cache import FAILURE_MEMORY, KEYS_MAX_AGE, REFETCH_AFTER
from tests.auth.jwks import entra_claims, hs256_token, unsigned_token
from tests.auth.sso.helpers import MakeClient, assert_refused, sign_in, stored_rows

INVALID_JWT = "The SSO token is not a valid JWT."
RS256_ONLY = "The SSO token must be RS256-signed with a key id."
BAD_SIGNATURE = "The SSO token signature is invalid."
UNKNOWN_KEY = "Token signed with an unknown key."
KEYS_UNAVAILABLE = "Cannot load the token signing keys; try again later."


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


async def test_failed_key_fetch_is_remembered_briefly_then_retried(
    client, factory, key, jwks, clock
) -> None:
    jwks.status = 503
    token = key.sign(entra_claims(clock.now()))
    assert (await sign_in(client, token)).status == 401
    jwks.status = 200
    # Answered at once, without asking the failing server again.
    await assert_refused(await sign_in(client, token), 401, KEYS_UNAVAILABLE, factory)
    assert jwks.fetches == 1
    clock.advance(FAILURE_MEMORY)
    assert (await sign_in(client, key.sign(entra_claims(clock.now())))).status == 200
    assert jwks.fetches == 2

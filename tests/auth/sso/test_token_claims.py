"""Teams SSO token claims: the issuer (the token's tenant's), the audience (SSO_AUDIENCE, else
the bot's app id), and the lifetime on the app's clock with five minutes of skew."""

from datetime import timedelta

import pytest

from tests.auth.jwks import AUDIENCE, ISSUER, entra_claims
from tests.auth.sso.helpers import OTHER_TENANT, MakeClient, assert_refused, sign_in
from tests.factories import TENANT

SKEW = timedelta(minutes=5)

WRONG_ISSUER = "The SSO token has the wrong issuer."
WRONG_AUDIENCE = "The SSO token was issued for another application."
EXPIRED = "The SSO token has expired."
NOT_YET_VALID = "The SSO token is not valid yet."


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

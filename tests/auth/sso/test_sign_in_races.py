"""Sign-ins that race: a new user signing in from several tabs at once is recorded once, and
every tab gets a session. On PostgreSQL each sign-in looked the user up before another's insert
committed (a unique violation, 500); SQLite's writers take turns, and run the same test."""

import asyncio

from tests.auth.jwks import entra_claims
from tests.auth.sso.helpers import sign_in, stored_rows


async def test_10_parallel_first_sign_ins_record_the_user_once(client, factory, key, clock) -> None:
    token = key.sign(entra_claims(clock.now()))
    responses = await asyncio.gather(*(sign_in(client, token) for _ in range(10)))
    assert [response.status for response in responses] == [200] * 10, [
        await response.text() for response in responses
    ]
    assert len({(await response.json())["_id"] for response in responses}) == 1
    assert await stored_rows(factory) == (1, 10)


async def test_10_parallel_sign_ins_of_one_upn_under_different_object_ids_admit_one(
    client, factory, key, clock
) -> None:
    tokens = [
        key.sign(entra_claims(clock.now(), oid=f"99999999-9999-9999-9999-{n:012d}"))
        for n in range(10)
    ]
    responses = await asyncio.gather(*(sign_in(client, token) for token in tokens))
    assert sorted(response.status for response in responses) == [200] + [409] * 9, [
        await response.text() for response in responses
    ]
    assert await stored_rows(factory) == (1, 1)

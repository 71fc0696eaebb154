"""A session's expiry slides as it is used, even while other requests write: the slide is a
short write of its own, taking its turn with the others, never a 500 ("database is locked")."""

import asyncio
from datetime import timedelta

from aiohttp.test_utils import TestClient

from bot.clock import FrozenClock
from tests.factories import Factory, create_item


async def test_sessions_slide_while_others_write(
    client: TestClient, factory: Factory, clock: FrozenClock
) -> None:
    writer = await factory.member("Writer")
    readers = [await factory.member(f"Reader {number}") for number in range(12)]
    await create_item(client, writer)
    clock.advance(timedelta(minutes=5))  # each reader's first request now slides its session

    async def list_bugs(headers: dict[str, str]) -> int:
        response = await client.get("/odata/bugs", headers=headers)
        return response.status

    async def create(number: int) -> int:
        response = await client.post(
            "/odata/bugs", json={"name": f"Bug {number}"}, headers=writer.in_channel()
        )
        return response.status

    answers = await asyncio.gather(
        *(create(number) for number in range(24)),
        *(list_bugs(reader.in_channel()) for reader in readers),
    )
    assert answers == [201] * 24 + [200] * 12

    me = await client.get("/api/me", headers=readers[0].headers)
    assert me.status == 200

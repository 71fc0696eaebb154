"""Header values that are not UTF-8 (aiohttp hands them on with lone surrogates in place of the
bytes): a credential so is one no one was issued, a context header so is a bad request; never a
500. Sent over a raw socket, as no HTTP client sends such bytes."""

import asyncio

import orjson
import pytest
from aiohttp.test_utils import TestClient

from tests.factories import CHANNEL, TEAM, Factory

LATIN_1 = b"\xe9t\xe9"  # "été" in Latin-1: not UTF-8


async def exchange(client: TestClient, method: str, path: str, *headers: bytes) -> tuple[int, dict]:
    """The status and JSON body of a request sent as these exact bytes."""
    assert client.host is not None and client.port is not None
    reader, writer = await asyncio.open_connection(client.host, client.port)
    try:
        lines = [f"{method} {path} HTTP/1.1".encode(), b"Host: localhost", b"Connection: close"]
        writer.write(b"\r\n".join([*lines, *headers, b"", b""]))
        await writer.drain()
        async with asyncio.timeout(20):
            answer = await reader.read()
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), orjson.loads(body)


def context(team: bytes = TEAM.encode(), channel: bytes = CHANNEL.encode()) -> list[bytes]:
    return [b"x-svc-teamid: " + team, b"x-svc-channelId: " + channel]


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/api/me"), ("GET", "/api/bugs"), ("DELETE", "/api/auth/session")],
)
async def test_a_cookie_that_is_not_utf8_is_no_session(
    client: TestClient, factory: Factory, method: str, path: str
) -> None:
    await factory.team()
    await factory.channel()
    status, body = await exchange(
        client, method, path, b"Cookie: graphNodeCookie=" + LATIN_1, *context()
    )
    assert status == 401
    assert set(body) == {"error"}


async def test_a_bearer_token_that_is_not_utf8_is_no_token(
    client: TestClient, factory: Factory
) -> None:
    await factory.team()
    await factory.channel()
    status, body = await exchange(
        client, "GET", "/api/bugs", b"Authorization: Bearer " + LATIN_1, *context()
    )
    assert status == 401
    assert set(body) == {"error"}


@pytest.mark.parametrize("header", ["x-svc-teamid", "x-svc-channelId"])
async def test_a_context_header_that_is_not_utf8_is_a_400_naming_it(
    client: TestClient, factory: Factory, header: str
) -> None:
    await factory.team()
    await factory.channel()
    member = await factory.member()
    cookie = f"Cookie: graphNodeCookie={member.cookie}".encode()
    bad = context(team=LATIN_1) if header == "x-svc-teamid" else context(channel=LATIN_1)
    status, body = await exchange(client, "GET", "/api/bugs", cookie, *bad)
    assert status == 400
    assert body == {"error": f"{header}: must be UTF-8 text"}


async def test_a_personal_tab_header_that_is_not_utf8_is_a_400_naming_it(
    client: TestClient, factory: Factory
) -> None:
    member = await factory.member()
    cookie = f"Cookie: graphNodeCookie={member.cookie}".encode()
    status, body = await exchange(
        client, "GET", "/api/me/bugs", cookie, b"x-svc-entityId: " + LATIN_1
    )
    assert status == 400
    assert body == {"error": "x-svc-entityId: must be UTF-8 text"}

"""Request bodies from clients that stall or leave, over a raw socket to the real server: a stall
is answered 408 within BODY_READ_TIMEOUT_SECONDS, and the connection closed; a client that leaves
mid-body is logged once, at INFO, as a disconnect."""

import asyncio
import logging

import orjson
import pytest

from bot.app import create_app
from bot.clock import FrozenClock
from bot.teams.transport.endpoint import PATH as BOT_PATH
from bot.web.errors import CLIENT_CLOSED_REQUEST
from bot.web.requestid import HEADER
from tests.web.served import served

# Only bounds for the test: the server answers a stall after its setting's 0.2 s.
TEST_TIMEOUT_SECONDS = 20
PATHS = ["/odata/bugs", BOT_PATH]


def headers_and_part_of_a_body(path: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        'Content-Length: 100\r\n\r\n{"name": "half'
    ).encode()


@pytest.fixture
async def server(db: str, make_settings, clock: FrozenClock):  # noqa: ANN001, ANN201
    """Where the real app listens, with a body read bounded at 0.2 s."""
    settings = make_settings(db, JOBS_POLL_SECONDS=0, BODY_READ_TIMEOUT_SECONDS=0.2)
    async with served(create_app(settings, clock=clock)) as address:
        yield address


@pytest.mark.parametrize("path", PATHS)
async def test_a_body_that_stalls_is_answered_408_and_the_connection_closed(
    server: tuple[str, int], path: str
) -> None:
    reader, writer = await asyncio.open_connection(*server)
    try:
        writer.write(headers_and_part_of_a_body(path))
        await writer.drain()
        async with asyncio.timeout(TEST_TIMEOUT_SECONDS):
            head = (await reader.readuntil(b"\r\n\r\n")).decode()
            lines = head.removesuffix("\r\n\r\n").split("\r\n")
            fields = {name.lower(): value for name, _, value in map(_field, lines[1:])}
            body = await reader.readexactly(int(fields["content-length"]))
    finally:
        writer.close()
    assert lines[0] == "HTTP/1.1 408 Request Timeout"
    # The server ends the connection once its answer is out (after lingering up to aiohttp's
    # 10 s for the rest of the body, which this test does not wait for).
    assert fields["connection"] == "close"
    assert fields["content-type"].startswith("application/json")
    assert fields[HEADER.lower()]
    assert orjson.loads(body) == {"error": "The request body did not arrive within 0.2 s."}


@pytest.mark.parametrize("path", PATHS)
async def test_a_client_gone_mid_body_is_logged_once_as_a_disconnect(
    server: tuple[str, int], path: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    _reader, writer = await asyncio.open_connection(*server)
    writer.write(headers_and_part_of_a_body(path))
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    async with asyncio.timeout(TEST_TIMEOUT_SECONDS):
        while not any(record.name == "bot.access" for record in caplog.records):
            await asyncio.sleep(0.01)
    ours = [record for record in caplog.records if record.name.startswith("bot.")]
    assert [(record.levelno, record.getMessage()) for record in ours[:-1]] == [
        (logging.INFO, f"client disconnected while sending POST {path}")
    ]
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert ours[-1].name == "bot.access"
    assert f" {CLIENT_CLOSED_REQUEST} " in ours[-1].getMessage()


def _field(line: str) -> tuple[str, str, str]:
    return line.partition(": ")

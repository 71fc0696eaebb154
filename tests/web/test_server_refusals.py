"""What aiohttp refuses before the app runs (a header over 8 KB, a URL over 32 KB, bytes that
are not HTTP), sent over a raw socket to the server as `python app.py` runs it: the API's JSON
error, with a request id, and never the text that was sent."""

import asyncio

import orjson
import pytest

from bot.app import create_app
from bot.clock import FrozenClock
from bot.web.requestid import HEADER
from tests.web.served import served

TEST_TIMEOUT_SECONDS = 20
SECRET_LOOKING = "s3cr3t"  # repeated to fill a value: it must not come back


def request(path: str, *headers: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: localhost", *headers, "", ""]
    return "\r\n".join(lines).encode()


REFUSED = [
    pytest.param(
        request("/healthz", f"X-Big: {SECRET_LOOKING * 1536}"),  # 9 KB
        "A request header is longer than 8190 bytes.",
        id="9-kb-header",
    ),
    pytest.param(
        request(f"/odata/bugs?$filter={SECRET_LOOKING * 5632}"),  # 33 KB
        "The URL is longer than 32 KiB.",
        id="33-kb-url",
    ),
    pytest.param(
        f"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-{SECRET_LOOKING}\r\n\r\n".encode(),
        "The request is not valid HTTP.",
        id="malformed-header",
    ),
]


@pytest.fixture
async def server(db: str, make_settings, clock: FrozenClock):  # noqa: ANN001, ANN201
    async with served(create_app(make_settings(db, JOBS_POLL_SECONDS=0), clock=clock)) as at:
        yield at


@pytest.mark.parametrize(("sent", "error"), REFUSED)
async def test_a_request_aiohttp_refuses_is_answered_in_the_api_shape(
    server: tuple[str, int], sent: bytes, error: str
) -> None:
    reader, writer = await asyncio.open_connection(*server)
    try:
        writer.write(sent)
        await writer.drain()
        async with asyncio.timeout(TEST_TIMEOUT_SECONDS):
            answer = await reader.read()  # to the end: the server closes the connection
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    assert lines[0].partition(" ")[2] == "400 Bad Request"  # aiohttp answers these as HTTP/1.0
    fields = {name.lower(): value for name, _, value in (line.partition(": ") for line in lines)}
    assert fields["content-type"].startswith("application/json")
    assert fields[HEADER.lower()]
    assert orjson.loads(body) == {"error": error}
    assert SECRET_LOOKING.encode() not in answer

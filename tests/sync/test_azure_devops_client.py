"""The Azure DevOps client over real HTTP against a scripted loopback server: PAT auth, failed
answers as the port's errors, the host left alone as long as Retry-After says, whichever
connector asks, the token never in an error or a log line, and the address rule."""

import base64
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import aiohttp
import pytest
from aiohttp import web
from pytest_aiohttp import AiohttpServer
from yarl import URL

from bot.clock import FrozenClock
from bot.events import ssrf
from bot.sync.address import base_url, check_source, source_http
from bot.sync.azure_devops.client import AzureDevOpsClient
from bot.sync.pacer import HostPacer
from bot.sync.source import (
    SourceError,
    SourceNotFound,
    SourceRefused,
    SourceStale,
    SourceThrottled,
    SourceUnauthorized,
)

TOKEN = "pat-s3cr3t-4f9a0c7e"
LOOPBACK = ssrf.AllowList.parse(["127.0.0.1"])


@dataclass
class Scripted:
    """Answers in order (the last one repeats); every request seen."""

    answers: list[web.Response] = field(default_factory=list)
    seen: list[web.Request] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append(request)
        self.bodies.append(await request.read())
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(datetime(2026, 12, 7, 6, 0, tzinfo=UTC))


@pytest.fixture
async def server(aiohttp_server: AiohttpServer) -> AsyncIterator[tuple[Scripted, URL]]:
    scripted = Scripted()
    served = await aiohttp_server(scripted.app(), host="127.0.0.1")
    yield scripted, base_url(str(served.make_url("/contoso")), LOOPBACK)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with source_http(LOOPBACK) as session:
        yield session


def client_for(
    http: aiohttp.ClientSession, url: URL, clock: FrozenClock, pacer: HostPacer, token: str = TOKEN
) -> AzureDevOpsClient:
    return AzureDevOpsClient(http, url, token, clock=clock, pacer=pacer)


async def test_a_call_sends_the_token_as_basic_with_an_empty_user_and_the_api_version(
    server: tuple[Scripted, URL], http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    scripted, url = server
    scripted.answers = [web.json_response({"count": 1, "value": [{"id": 1}]})]
    client = client_for(http, url, clock, HostPacer())
    answer = await client.call(
        "POST", client.url("P Q", "_apis", "wit", "workitems", "$Bug"), body=[], what="x"
    )
    assert answer == {"count": 1, "value": [{"id": 1}]}
    request = scripted.seen[0]
    assert request.raw_path.split("?")[0] == "/contoso/P%20Q/_apis/wit/workitems/$Bug"
    assert request.query["api-version"] == "7.1"
    expected = base64.b64encode(f":{TOKEN}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {expected}"
    assert request.headers["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (401, SourceUnauthorized),
        (403, SourceUnauthorized),
        (404, SourceNotFound),
        (412, SourceStale),
        (500, SourceError),
        (502, SourceError),
    ],
)
async def test_failed_answers_are_the_ports_errors(
    server: tuple[Scripted, URL],
    http: aiohttp.ClientSession,
    clock: FrozenClock,
    status: int,
    kind: type[Exception],
) -> None:
    scripted, url = server
    scripted.answers = [web.json_response({"message": "no"}, status=status)]
    with pytest.raises(kind) as raised:
        await client_for(http, url, clock, HostPacer()).call("GET", url, what="read")
    assert type(raised.value) is kind


async def test_a_refusal_carries_the_vendors_type_key_and_message(
    server: tuple[Scripted, URL], http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    scripted, url = server
    body = {
        "message": "TF401320: Rule Error for field Title.",
        "typeKey": "RuleValidationException",
    }
    scripted.answers = [web.json_response(body, status=400)]
    with pytest.raises(SourceRefused) as raised:
        await client_for(http, url, clock, HostPacer()).call("PATCH", url, body=[], what="update")
    assert (raised.value.code, raised.value.message) == (body["typeKey"], body["message"])


async def test_a_429_holds_the_host_for_every_connector_until_retry_after_has_passed(
    server: tuple[Scripted, URL], http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    scripted, url = server
    ok = web.json_response({"id": "p"})
    scripted.answers = [web.Response(status=429, headers={"Retry-After": "30"}), ok]
    pacer = HostPacer()
    first, other = client_for(http, url, clock, pacer), client_for(http, url, clock, pacer, "b")
    with pytest.raises(SourceThrottled) as raised:
        await first.call("GET", url, what="read")
    assert raised.value.retry_after == 30
    clock.advance(timedelta(seconds=29))
    for client in (first, other):
        with pytest.raises(SourceThrottled) as held:
            await client.call("GET", url, what="read")
        assert held.value.retry_after == 1
    assert len(scripted.seen) == 1  # nothing sent while the host is held
    clock.advance(timedelta(seconds=1))
    assert await other.call("GET", url, what="read") == {"id": "p"}
    assert len(scripted.seen) == 2


async def test_a_503_with_an_http_date_holds_the_host_until_then(
    server: tuple[Scripted, URL], http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    scripted, url = server
    until = format_datetime(clock.now() + timedelta(seconds=90), usegmt=True)
    scripted.answers = [web.Response(status=503, headers={"Retry-After": until}), web.Response()]
    client = client_for(http, url, clock, HostPacer())
    with pytest.raises(SourceThrottled) as raised:
        await client.call("GET", url, what="read")
    assert raised.value.retry_after == 90
    clock.advance(timedelta(seconds=89))
    with pytest.raises(SourceThrottled):
        await client.call("GET", url, what="read")
    clock.advance(timedelta(seconds=1))
    assert await client.call("GET", url, what="read") is None
    assert len(scripted.seen) == 2


async def test_a_429_without_retry_after_still_holds_the_host_a_while(
    server: tuple[Scripted, URL], http: aiohttp.ClientSession, clock: FrozenClock
) -> None:
    scripted, url = server
    scripted.answers = [web.Response(status=429)]
    client = client_for(http, url, clock, HostPacer())
    with pytest.raises(SourceThrottled) as raised:
        await client.call("GET", url, what="read")
    assert raised.value.retry_after is not None and 5 <= raised.value.retry_after <= 10
    with pytest.raises(SourceThrottled):
        await client.call("GET", url, what="read")
    assert len(scripted.seen) == 1


async def test_the_token_is_never_in_an_error_or_a_log_line(
    server: tuple[Scripted, URL],
    http: aiohttp.ClientSession,
    clock: FrozenClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    scripted, url = server
    echoed = {"message": f"The token {TOKEN} is not valid", "typeKey": "Bad"}
    scripted.answers = [
        web.json_response(echoed, status=401),
        web.json_response(echoed, status=400),
        web.Response(status=429, headers={"Retry-After": "5"}),
    ]
    client = client_for(http, url, clock, HostPacer())
    caplog.set_level(logging.DEBUG)
    errors = []
    for _ in range(3):
        with pytest.raises(Exception) as raised:
            await client.call("GET", url, what="read")
        errors.append(raised.value)
    assert [type(error) for error in errors] == [
        SourceUnauthorized,
        SourceRefused,
        SourceThrottled,
    ]
    assert "***" in str(errors[0]) and "***" in str(errors[1])
    for error in errors:
        assert TOKEN not in str(error) and TOKEN not in repr(error.__dict__)
    assert TOKEN not in caplog.text
    assert base64.b64encode(f":{TOKEN}".encode()).decode() not in caplog.text


async def test_a_network_failure_is_a_source_error(
    http: aiohttp.ClientSession, clock: FrozenClock, unused_tcp_port: int
) -> None:
    url = base_url(f"http://127.0.0.1:{unused_tcp_port}/contoso", LOOPBACK)
    with pytest.raises(SourceError) as raised:
        await client_for(http, url, clock, HostPacer()).call("GET", url, what="read the project")
    assert str(raised.value).startswith("read the project: ")
    assert TOKEN not in str(raised.value)


async def test_a_loopback_source_is_refused_at_the_request_unless_allowed(
    server: tuple[Scripted, URL], clock: FrozenClock
) -> None:
    scripted, url = server
    async with source_http(ssrf.AllowList()) as guarded:
        with pytest.raises(SourceError) as raised:
            await client_for(guarded, url, clock, HostPacer()).call("GET", url, what="read")
    assert "loopback" in str(raised.value)
    assert scripted.seen == []


@pytest.mark.parametrize(
    ("hostname", "expected"),
    [
        ("dev.azure.com/contoso", "https://dev.azure.com/contoso"),
        ("https://dev.azure.com/contoso/", "https://dev.azure.com/contoso"),
        ("contoso.visualstudio.com", "https://contoso.visualstudio.com/"),
        ("http://127.0.0.1:8123/contoso", "http://127.0.0.1:8123/contoso"),
    ],
)
def test_a_hostname_as_a_base_url(hostname: str, expected: str) -> None:
    assert str(base_url(hostname, LOOPBACK)) == expected


@pytest.mark.parametrize(
    ("hostname", "why"),
    [
        ("http://dev.azure.com/contoso", "must use https"),
        ("https://127.0.0.1/contoso", "loopback"),
        ("https://10.0.0.8/x", "private"),
        ("https://user:pw@dev.azure.com/x", "user name or password"),
        ("ftp://dev.azure.com/x", "http(s)"),
        ("https://dev.azure.com/x?a=1", "query"),
    ],
)
def test_a_hostname_refused(hostname: str, why: str) -> None:
    with pytest.raises(ssrf.DestinationRefused) as raised:
        base_url(hostname, ssrf.AllowList())
    assert raised.value.field == "hostname" and why in str(raised.value)


async def test_on_save_a_name_resolving_to_loopback_is_refused_unless_allowed() -> None:
    with pytest.raises(ssrf.DestinationRefused) as raised:
        await check_source("https://localhost:8443/contoso", ssrf.AllowList())
    assert raised.value.field == "hostname" and "loopback" in str(raised.value)
    allowed = ssrf.AllowList.parse(["localhost"])
    url = await check_source("http://localhost:8443/contoso", allowed)
    assert str(url) == "http://localhost:8443/contoso"

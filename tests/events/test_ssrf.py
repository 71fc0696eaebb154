"""The SSRF guard: every refused address in every spelling, at save (`check_destination`) and
at send (a real aiohttp request through `client_connector` to a receiver on loopback)."""

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from bot.events.ssrf import AllowList, DestinationRefused, check_destination, client_connector
from bot.settings import Settings

NOBODY = AllowList.parse([])
HITS = web.AppKey("hits", list[str])

# (url, what the refusal says): each a case the issue lists, in the spellings it names.
REFUSED = [
    ("http://127.0.0.1/", "127.0.0.1 is loopback"),
    ("http://127.255.0.9:8080/x", "loopback"),
    ("http://2130706433/", "2130706433 means 127.0.0.1, which is loopback"),
    ("http://0x7f.1/", "0x7f.1 means 127.0.0.1, which is loopback"),
    ("http://0x7f000001/", "means 127.0.0.1, which is loopback"),
    ("http://0177.0.0.1/", "0177.0.0.1 means 127.0.0.1, which is loopback"),
    ("http://127.1/", "127.1 means 127.0.0.1, which is loopback"),
    ("http://localhost/", "localhost resolves to 127.0.0.1, which is loopback"),
    ("http://[::1]/", "::1 is loopback"),
    ("http://10.1.2.3/", "private"),
    ("http://172.16.0.1/", "private"),
    ("http://192.168.1.1/", "private"),
    ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ("http://169.254.1.1/", "link-local"),
    ("http://[fe80::1]/", "link-local"),
    ("http://[fe80::1%25eth0]/", "link-local"),
    ("http://100.100.100.200/", "cloud metadata"),
    ("http://[fd00:ec2::254]/", "cloud metadata"),
    ("http://100.64.0.1/", "CGNAT"),
    ("http://100.127.255.254/", "CGNAT"),
    ("http://0.0.0.0/", "'this network'"),
    ("http://0.1.2.3/", "'this network'"),
    ("http://224.0.0.1/", "multicast"),
    ("http://[ff02::1]/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "reserved"),
    ("http://[fc00::1]/", "unique-local"),
    ("http://[fd12:3456::1]/", "unique-local"),
    ("http://[::]/", "unspecified"),
    ("http://[::ffff:127.0.0.1]/", "IPv4-mapped IPv6 embedding 127.0.0.1 (loopback)"),
    ("http://[::ffff:8.8.8.8]/", "IPv4-mapped IPv6 embedding 8.8.8.8"),
    ("http://[::169.254.169.254]/", "IPv4-compatible IPv6 embedding 169.254.169.254"),
    ("http://[::127.0.0.1]/", "IPv4-compatible IPv6 embedding 127.0.0.1"),
    ("http://[64:ff9b::7f00:1]/", "NAT64 IPv6 embedding 127.0.0.1 (loopback)"),
    ("http://[64:ff9b::a9fe:a9fe]/", "NAT64 IPv6 embedding 169.254.169.254"),
    ("http://[2002:7f00:1::]/", "6to4 IPv6 embedding 127.0.0.1 (loopback)"),
    ("http://[2002:a00:1::1]/", "6to4 IPv6 embedding 10.0.0.1 (private"),
    # Teredo: client 127.0.0.1 is stored inverted (0x80ff:fffe).
    ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "Teredo IPv6 embedding 127.0.0.1"),
    ("ftp://example.com/", "must be an absolute http(s) URL"),
    ("file:///etc/passwd", "must be an absolute http(s) URL"),
    ("/relative/path", "must be an absolute http(s) URL"),
    ("example.com/hook", "must be an absolute http(s) URL"),
    ("http://user:pw@example.com/", "must not carry a user name or password"),
    ("http://user@example.com/", "must not carry a user name or password"),
    ("http://134744072/", "write the address '134744072' as 8.8.8.8"),
    ("http://nowhere.invalid/", "nowhere.invalid does not resolve"),
]

ACCEPTED = [
    "http://8.8.8.8/hook",
    "https://1.1.1.1:8443/x?y=1",
    "http://[2606:4700:4700::1111]/",
    "http://[64:ff9b::808:808]/",  # NAT64 of a public address
    "http://[2002:808:808::1]/",  # 6to4 of a public address
]


@pytest.mark.parametrize(("url", "why"), REFUSED)
async def test_refused_at_save_naming_the_reason(url: str, why: str) -> None:
    with pytest.raises(DestinationRefused) as refused:
        await check_destination(url, NOBODY)
    assert refused.value.field == "action.url"
    assert why in refused.value.message


@pytest.mark.parametrize("url", ACCEPTED)
async def test_global_unicast_addresses_are_accepted(url: str) -> None:
    await check_destination(url, NOBODY)


@pytest.mark.parametrize(
    ("entries", "url"),
    [
        (["127.0.0.1"], "http://127.0.0.1:8080/"),
        (["127.0.0.0/8"], "http://127.0.0.5/"),
        (["localhost"], "http://localhost/"),
        (["LocalHost."], "http://localhost/"),
        (["10.0.0.0/8", "::1"], "http://[::1]/"),
    ],
)
async def test_the_allow_list_lets_hosts_addresses_and_networks_through(
    entries: list[str], url: str
) -> None:
    await check_destination(url, AllowList.parse(entries))


async def test_the_allow_list_lets_only_what_it_names_through() -> None:
    allowed = AllowList.parse(["127.0.0.1"])
    with pytest.raises(DestinationRefused, match="127.0.0.2 is loopback"):
        await check_destination("http://127.0.0.2/", allowed)
    with pytest.raises(DestinationRefused, match="10.0.0.1 is private"):
        await check_destination("http://10.0.0.1/", allowed)


def test_the_setting_reads_a_comma_separated_list(make_settings) -> None:  # noqa: ANN001
    settings: Settings = make_settings(
        "sqlite+aiosqlite:///x.db", WEBHOOK_ALLOWED_HOSTS="127.0.0.1, localhost,10.0.0.0/8"
    )
    assert settings.webhook_allowed_hosts == ["127.0.0.1", "localhost", "10.0.0.0/8"]
    assert make_settings("sqlite+aiosqlite:///x.db").webhook_allowed_hosts == []


@pytest.fixture
async def receiver() -> AsyncIterator[TestServer]:
    """A webhook receiver on loopback that counts what reaches it."""

    async def hook(request: web.Request) -> web.Response:
        request.app[HITS].append(await request.text())
        return web.Response(text="received")

    app = web.Application()
    app[HITS] = []
    app.router.add_post("/hook", hook)
    async with TestServer(app, host="127.0.0.1") as server:
        yield server


async def post(url: str, allowed: AllowList) -> str:
    async with (
        aiohttp.ClientSession(connector=client_connector(allowed)) as session,
        session.post(url, data="payload", allow_redirects=False) as response,
    ):
        return await response.text()


@pytest.mark.parametrize(
    ("host", "why"),
    [
        ("127.0.0.1", "127.0.0.1 is loopback"),
        ("localhost", "localhost resolves to 127.0.0.1, which is loopback"),
        ("0x7f.1", "0x7f.1 means 127.0.0.1, which is loopback"),
        ("127.1", "127.1 means 127.0.0.1, which is loopback"),
        ("2130706433", "2130706433 means 127.0.0.1, which is loopback"),
    ],
)
async def test_a_loopback_receiver_is_refused_at_send(
    receiver: TestServer, host: str, why: str
) -> None:
    with pytest.raises(DestinationRefused, match=why):
        await post(f"http://{host}:{receiver.port}/hook", NOBODY)
    assert receiver.app[HITS] == []


@pytest.mark.parametrize("entry", ["127.0.0.1", "127.0.0.0/8"])
async def test_an_allowed_loopback_receiver_is_reached(receiver: TestServer, entry: str) -> None:
    assert await post(f"http://127.0.0.1:{receiver.port}/hook", AllowList.parse([entry])) == (
        "received"
    )
    assert receiver.app[HITS] == ["payload"]


async def test_an_allowed_name_is_reached_by_name(receiver: TestServer) -> None:
    allowed = AllowList.parse(["localhost"])
    assert await post(f"http://localhost:{receiver.port}/hook", allowed) == "received"


async def test_allowing_an_address_does_not_allow_a_name_resolving_elsewhere(
    receiver: TestServer,
) -> None:
    # localhost may resolve to ::1 as well as 127.0.0.1: the whole host is refused.
    allowed = AllowList.parse(["127.0.0.2"])
    with pytest.raises(DestinationRefused, match="localhost resolves to"):
        await post(f"http://localhost:{receiver.port}/hook", allowed)
    assert receiver.app[HITS] == []

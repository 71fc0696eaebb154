"""No secret in any log line, generated from the route table: every route, present and future,
is driven with forged credentials and a body full of secrets, then as its own member would use
it (a session cookie or an API token in turn); beside them the bot endpoint, /metrics, the
docs, download links followed and tampered with, and webhook deliveries sent. Every line the
process writes meanwhile, at DEBUG, in both formats, is searched for each secret the requests
carried or the app holds: cookies, session and API tokens, passwords, webhook secrets
(`whsec_…`), Authorization values and download-link signatures.
"""

import re
import secrets
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pytest_aiohttp import AiohttpServer
from yarl import URL

from bot.events.delivery import DELIVER
from bot.keys import WORKER
from bot.projects.schemas import ProjectIn
from bot.settings import Settings
from bot.web.routing import CHANNEL_HEADER, COOKIE, ENTITY_HEADER, TEAM_HEADER, Access, Endpoint
from tests.conftest import SECRET
from tests.events.deliveries.receiver import Receiver
from tests.factories import Factory
from tests.generated.cross_team_matrix import (
    ENDPOINTS,
    PATH_PARAMETER,
    fill,
    form_of,
    known_good,
    probe_of,
    route_of,
)
from tests.generated.cross_team_world import World
from tests.generated.test_cross_team import send
from tests.logged import captured
from tests.teams.activities import emulator_message, installed


def _secret(name: str) -> str:
    return f"{name}-{secrets.token_hex(16)}"


APP_PASSWORD = _secret("app-password")
METRICS_TOKEN = _secret("metrics-token")
SIGNING_KEY = _secret("download-key")
FORGED_COOKIE = _secret("forged-cookie")
FORGED_TOKEN = _secret("forged-token")
PASSWORD = _secret("password")
RECEIVER_TOKEN = _secret("receiver-token")
SSO_TOKEN = f"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.{secrets.token_hex(32)}"
FORGED_WHSEC = f"whsec_{secrets.token_hex(24)}"
# What a careless client might send anywhere: a body full of secrets, under names a log could
# be tempted to print.
SECRET_BODY = {
    "password": PASSWORD,
    "token": FORGED_TOKEN,
    "secret": FORGED_WHSEC,
    "name": PASSWORD,
    "authorization": f"Bearer {FORGED_TOKEN}",
}
FORGED = {
    "Cookie": f"{COOKIE}={FORGED_COOKIE}",
    "Authorization": f"Bearer {FORGED_TOKEN}",
    TEAM_HEADER: "19:team-a@thread.tacv2",
    CHANNEL_HEADER: "19:channel-a@thread.tacv2",
    ENTITY_HEADER: "my-bugs",
}
WEBHOOK_SECRET = re.compile(r"whsec_[A-Za-z0-9+/=]+")
SIGNATURE = re.compile(r"signature=([0-9a-f]+)")
DOWNLOAD_URL = re.compile(r"https?://[^\"]+/files/download/[^\"]+")


@pytest.fixture
def settings(db: str, make_settings) -> Settings:  # noqa: ANN001
    """Every secret setting set to a known value; the worker runs when the test turns it."""
    return make_settings(
        db,
        JOBS_POLL_SECONDS=0,
        MicrosoftAppPassword=APP_PASSWORD,
        METRICS_TOKEN=METRICS_TOKEN,
        DOWNLOAD_SIGNING_KEY=SIGNING_KEY,
        WEBHOOK_ALLOWED_HOSTS="127.0.0.1",
        WEBHOOK_TIMEOUT_SECONDS=2,
    )


class Drive:
    """Sends requests, counts them, and keeps every secret that came back in an answer."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.sent = 0
        self.secrets: set[str] = set()
        self.download_urls: set[str] = set()
        self.server_errors: list[str] = []

    async def __call__(
        self, method: str, path: str, headers: dict[str, str], body: Any = None, form: Any = None
    ) -> tuple[int, Any]:
        status, payload, text = await send(self.client, method, path, headers, body, form)
        self.sent += 1
        self.secrets |= set(WEBHOOK_SECRET.findall(text)) | set(SIGNATURE.findall(text))
        self.download_urls |= set(DOWNLOAD_URL.findall(text))
        if status >= 500:
            self.server_errors.append(f"{method} {path}: {status} {text[:200]}")
        return status, payload


def ordered(endpoints: list[Endpoint]) -> list[Endpoint]:
    """Deletes last, and signing out after everything else."""

    def rank(endpoint: Endpoint) -> int:
        if route_of(endpoint) == "DELETE /api/auth/session":
            return 2
        return 1 if endpoint.method == "DELETE" else 0

    return sorted(endpoints, key=rank)


def concrete_path(endpoint: Endpoint, world: World) -> str:
    if not PATH_PARAMETER.search(endpoint.path):
        return endpoint.path
    if endpoint.access is Access.CHANNEL:
        return fill(endpoint.path, *world.a.keys(probe_of(endpoint).target))
    return fill(endpoint.path, world.a.attachment["_id"])  # the download route


def good_body(endpoint: Endpoint, world: World) -> Any:
    """The route's known-good body, its secret fields holding known secrets."""
    if route_of(endpoint) == "POST /api/auth/teams-sso":
        return {"token": SSO_TOKEN}
    body = known_good(endpoint, world.a)
    if endpoint.body is ProjectIn and body is not None:
        body["token"] = PASSWORD  # the project's credentials, kept sealed
    return body


def member_headers(endpoint: Endpoint, world: World, api_token: str, turn: int) -> dict[str, str]:
    """Team A's member, with the session cookie or (every other route) an API token."""
    member = world.a.member
    if turn % 2:
        headers = {"Authorization": f"Bearer {api_token}"}
    else:
        headers = dict(member.headers)
    headers.update({TEAM_HEADER: world.a.team, CHANNEL_HEADER: world.a.channel})
    if endpoint.access is Access.PERSONAL:
        headers[ENTITY_HEADER] = "my-bugs"
    return headers


async def drive_the_route_table(drive: Drive, world: World, api_token: str) -> None:
    for turn, endpoint in enumerate(ordered(ENDPOINTS)):
        path, method = concrete_path(endpoint, world), endpoint.method
        takes_body = endpoint.body is not None
        await drive(method, path, FORGED, SECRET_BODY if takes_body else None)
        headers = member_headers(endpoint, world, api_token, turn)
        if takes_body:
            await drive(method, path, headers, SECRET_BODY)  # malformed: a 400
        await drive(method, path, headers, good_body(endpoint, world), form_of(endpoint))


async def follow_download_links(drive: Drive) -> None:
    assert drive.download_urls, "no answer carried a download link"
    for url in sorted(drive.download_urls):
        link = URL(url)
        await drive("GET", link.path_qs, {})
        tampered = link.update_query(signature="0" * 64, expires=link.query["expires"])
        await drive("GET", tampered.path_qs, {})


async def drive_the_routes_beside_the_table(drive: Drive, service_url: str) -> None:
    for headers in ({}, {"Authorization": f"Bearer {FORGED_TOKEN}"}):
        await drive("GET", "/metrics", headers)
    await drive("GET", "/metrics", {"Authorization": f"Bearer {METRICS_TOKEN}"})
    for path in ("/openapi.json", "/docs", "/odata/$metadata"):
        await drive("GET", path, FORGED)
    for activity in (installed(service_url), emulator_message(service_url, f"help {PASSWORD}")):
        await drive("POST", "/api/messages", {"Authorization": f"Bearer {SSO_TOKEN}"}, activity)


async def deliver_webhooks(drive: Drive, world: World, receiver: Receiver) -> None:
    """Rules whose requests carry a receiver's token, answered 200 and 500, and their tries."""
    headers = world.a.member.in_channel(world.a.team, world.a.channel)
    for path in ("/ok", "/fail"):
        rule = {
            "eventName": f"Deliver to {path}",
            "entityType": "bug",
            "triggerType": "ITEM_CREATED",
            "actionType": "HTTP",
            "action": {
                "url": receiver.url(path),
                "headers": [{"name": "Authorization", "value": f"Bearer {RECEIVER_TOKEN}"}],
            },
        }
        status, _ = await drive("POST", "/odata/eventDefinitions", headers, rule)
        assert status == 201
    status, _ = await drive("POST", "/odata/bugs", headers, {"name": "Delivered"})
    assert status == 201


async def test_no_secret_reaches_a_log_line(
    client: TestClient,
    factory: Factory,
    world: World,
    aiohttp_server: AiohttpServer,
) -> None:
    receiver = Receiver()
    served = await aiohttp_server(receiver.app(), host="127.0.0.1")
    receiver.base_url = str(served.make_url("")).rstrip("/")
    api_token = await factory.api_token(world.a.member.user)
    drive = Drive(client)
    with captured() as out:
        await deliver_webhooks(drive, world, receiver)
        await drive_the_route_table(drive, world, api_token)
        await follow_download_links(drive)
        await drive_the_routes_beside_the_table(drive, receiver.base_url)
        for _ in range(3):
            await client.app[WORKER].run_once()

    assert drive.server_errors == []
    assert len(receiver.to("/fail")) >= 1 and receiver.to("/ok")
    written = out.everything()
    known = {
        APP_PASSWORD,
        METRICS_TOKEN,
        SIGNING_KEY,
        SECRET,
        FORGED_COOKIE,
        FORGED_TOKEN,
        PASSWORD,
        RECEIVER_TOKEN,
        SSO_TOKEN,
        FORGED_WHSEC,
        api_token,
        world.a.member.cookie,
        world.b.member.cookie,
        world.eve.cookie,
        world.a.definition["secret"],
        world.b.definition["secret"],
    }
    leaked = sorted(secret for secret in known | drive.secrets if secret in written)
    assert leaked == [], f"secrets in the log lines: {leaked}"
    assert "whsec_" not in written and "signature=" not in written
    # One access line per request; the jobs ran, each one line.
    assert len(out.of("bot.access")) == drive.sent
    assert {line["kind"] for line in out.of("bot.jobs.observed_worker")} >= {DELIVER.name}

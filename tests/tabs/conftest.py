"""The tabs in Chromium against the real app: the bundle built as `make` builds it, the app on
loopback, a browser, and a channel with a signed-in member."""

import subprocess
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import ClientSession
from aiohttp.test_utils import TestServer
from pytest_aiohttp import AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.settings import Settings
from tests.factories import CHANNEL, TEAM, Factory, Member
from tests.pages.chromium import Browser, chromium

ROOT = Path(__file__).parents[2]


@pytest.fixture(scope="session")
def tabs_built() -> None:
    """`make tabs`: nothing to do when the bundle is newer than its sources."""
    subprocess.run(["make", "--no-print-directory", "-s", "tabs"], cwd=ROOT, check=True)


@dataclass
class Rig:
    server: TestServer
    base: str
    member: Member

    def channel_url(self, **params: str) -> str:
        query = "&".join(
            f"{k}={v}" for k, v in {"teamId": TEAM, "channelId": CHANNEL, **params}.items()
        )
        return f"{self.base}/tabs/channel?{query}"

    async def api(
        self, method: str, path: str, headers_of: dict[str, str] | None = None, **kwargs: Any
    ) -> Any:
        headers = headers_of or self.member.in_channel()
        async with ClientSession() as http:
            async with http.request(
                method, self.server.make_url(path), headers=headers, **kwargs
            ) as response:
                assert response.status < 300, (
                    f"{method} {path}: {response.status} {await response.text()}"
                )
                return await response.json() if response.status != 204 else None

    async def bug(self, name: str, **fields: Any) -> dict[str, Any]:
        created: dict[str, Any] = await self.api(
            "POST", "/odata/bugs", json={"name": name, **fields}
        )
        return created


@pytest.fixture
async def rig(
    tabs_built: None,
    settings: Settings,
    clock: FrozenClock,
    factory: Factory,
    aiohttp_server: AiohttpServer,
) -> Rig:
    server = await aiohttp_server(create_app(settings, clock=clock))
    member = await factory.member("Ada Lovelace")
    return Rig(server, str(server.make_url("")).rstrip("/"), member)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[Browser]:
    async with chromium(tmp_path / "profile") as opened:
        yield opened

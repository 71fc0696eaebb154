"""The item page in a real browser, headless Chromium: it renders the item, and a title full of
markup shows as text and runs nothing."""

from pathlib import Path
from urllib.parse import quote

from aiohttp import ClientSession
from aiohttp.test_utils import TestServer
from pytest_aiohttp import AiohttpServer

from bot.app import create_app
from bot.clock import FrozenClock
from bot.settings import Settings
from tests.factories import Factory, Member
from tests.pages.chromium import chromium

MARKUP = "<script>alert(1)</script><b>x</b>"


async def test_chromium_shows_the_item_and_runs_none_of_its_markup(
    settings: Settings,
    clock: FrozenClock,
    factory: Factory,
    aiohttp_server: AiohttpServer,
    tmp_path: Path,
) -> None:
    server = await aiohttp_server(create_app(settings, clock=clock))
    base = str(server.make_url("")).rstrip("/")
    ada = await factory.member("Ada Lovelace")
    bug = await _bug(server, ada, name=MARKUP, body=f"<img src=x onerror=alert(2)>{MARKUP}")
    url = f"{base}/bugs/{bug}"
    async with chromium(tmp_path / "profile") as browser:
        # The harness sees a script that runs: an alert is a dialog it reports.
        control = await browser.visit("data:text/html," + quote("<script>alert(1)</script>"))
        assert control.dialogs == ["1"]

        page = await browser.visit(url, cookies={"graphNodeCookie": ada.cookie})
        assert page.status == 200
        assert page.dialogs == []
        assert page.headings == [MARKUP]
        assert page.title == f"Bug #1 {MARKUP}"
        assert f"<img src=x onerror=alert(2)>{MARKUP}" in page.text
        assert "Status\nNot Started" in page.text and "Assigned to\nNobody" in page.text
        assert not {"script", "b", "img"} & set(page.elements)

        signed_out = await browser.visit(url)
        assert signed_out.status == 401
        assert signed_out.headings == ["Sign in to see this bug"]
        assert MARKUP not in signed_out.text


async def _bug(server: TestServer, member: Member, **fields: str) -> str:
    async with ClientSession() as http:
        response = await http.post(
            server.make_url("/odata/bugs"), json=fields, headers=member.in_channel()
        )
        assert response.status == 201, await response.text()
        return str((await response.json())["_id"])

"""The tabs' pages in Chromium: they load nothing from another origin and Teams may frame them;
axe-core finds no serious or critical issue on any page in any theme; signed out, they say how
to sign in."""

import pytest

from tests.pages.chromium import Browser
from tests.tabs.browser import Tab, open_tab
from tests.tabs.conftest import ROOT, Rig

AXE = ROOT / "bot/tabs/node_modules/axe-core/axe.min.js"
READY = "document.querySelector('main').getAttribute('aria-busy') === 'false'"
THEMES = ("default", "dark", "contrast")


async def serious_issues(tab: Tab) -> list[str]:
    """What axe-core calls serious or critical on the page as it is now."""
    if not await tab.run("typeof axe !== 'undefined'"):
        await tab.run(AXE.read_text())
    found = await tab.run(
        """axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations
        .filter((v) => ['serious', 'critical'].includes(v.impact))
        .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`))"""
    )
    return list(found)


@pytest.mark.parametrize("theme", THEMES)
async def test_every_page_passes_axe_in_every_theme(rig: Rig, browser: Browser, theme: str) -> None:
    await rig.bug("Overdue bug", dueDate="2020-01-01", assignedTo=[{"_id": rig.member.user.id}])
    await rig.bug("Due later", dueDate="2099-01-01", priority="Urgent")
    pages = {
        "board": rig.channel_url(theme=theme),
        "list": rig.channel_url(view="list", theme=theme),
        "me": f"{rig.base}/tabs/me?theme={theme}",
        "config": f"{rig.base}/tabs/config?theme={theme}",
    }
    for name, url in pages.items():
        async with open_tab(browser, url, rig.member.cookie) as tab:
            await tab.until(READY)
            assert await tab.run("document.documentElement.dataset.theme") == theme
            assert await serious_issues(tab) == [], name
            if name in ("board", "list"):
                await tab.run("document.querySelector('.title').click()")
                await tab.until("document.querySelector('dialog.panel[open] textarea')")
                assert await serious_issues(tab) == [], f"{name}'s item panel"


async def test_the_pages_load_nothing_from_elsewhere_and_teams_may_frame_them(
    rig: Rig, browser: Browser
) -> None:
    await rig.bug("A bug", assignedTo=[{"_id": rig.member.user.id}])
    for path in ("/tabs/channel", "/tabs/me", "/tabs/config"):
        headers = (await rig_get(rig, path))["Content-Security-Policy"]
        assert "default-src 'none'" in headers and "script-src 'self'" in headers
        assert (
            "frame-ancestors 'self' https://teams.microsoft.com https://*.teams.microsoft.com"
            in (headers)
        )
    urls = [rig.channel_url(), rig.channel_url(view="list"), f"{rig.base}/tabs/me"]
    for url in urls:
        async with open_tab(browser, url, rig.member.cookie) as tab:
            await tab.until(READY)
            await tab.run("document.querySelector('.title').click()")
            await tab.until("document.querySelector('dialog.panel[open] ul.files')")
            requested = tab.requested()
            # A data: URL holds its bytes (Chromium's own date-picker icon): nothing is fetched.
            elsewhere = [u for u in requested if not u.startswith((f"{rig.base}/", "data:image/"))]
            assert requested and elsewhere == []
            assert tab.exceptions() == []


async def test_signed_out_the_tab_says_how_to_sign_in(rig: Rig, browser: Browser) -> None:
    async with open_tab(browser, rig.channel_url(), None) as tab:
        await tab.until(READY)
        assert await tab.text("h1") == "Sign in to see the tracker"
        assert "python -m bot admin session create --user" in await tab.text("main")


async def rig_get(rig: Rig, path: str) -> dict[str, str]:
    from aiohttp import ClientSession

    async with ClientSession() as http, http.get(rig.server.make_url(path)) as response:
        assert response.status == 200
        return dict(response.headers)

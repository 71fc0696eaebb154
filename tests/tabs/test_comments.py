"""The item panel's discussion in Chromium, with Teams' connector stood in locally: a comment from
the panel starts the thread when there is none, reaches Teams, and shows as text."""

from pathlib import Path

from tests.discussions.conftest import connector, desk, teams_wait_seconds  # noqa: F401 - fixtures
from tests.discussions.helpers import Desk
from tests.factories import CHANNEL, TEAM
from tests.pages.chromium import Browser, chromium
from tests.tabs.browser import open_tab

PANEL = "document.querySelector('dialog.panel[open]')"


async def test_a_comment_from_the_panel_reaches_the_thread_and_shows_as_text(
    tabs_built: None,
    desk: Desk,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    bug = await desk.bug(name="Discussed bug")
    base = str(desk.client.make_url("")).rstrip("/")
    url = f"{base}/tabs/channel?teamId={TEAM}&channelId={CHANNEL}&view=list"
    async with chromium(tmp_path / "profile") as browser:
        await _comment(browser, url, desk, bug["_id"])


async def _comment(browser: Browser, url: str, at: Desk, bug_id: str) -> None:
    async with open_tab(browser, url, at.ada.cookie) as tab:
        await tab.until("document.querySelector('table.items .title')")
        await tab.run("document.querySelector('table.items .title').click()")
        await tab.until(
            f"{PANEL}?.querySelector('ol.messages')?.innerText === 'No discussion yet.'"
        )
        await tab.run(
            f"""(() => {{ const box = {PANEL}.querySelector('textarea[name=content]');
            box.value = 'Fixed in <b>1.2</b>'; box.form.requestSubmit(); }})()"""
        )
        await tab.until(f"{PANEL}.innerText.includes('Comment posted.')")
        shown = await tab.until(
            f"[...{PANEL}.querySelectorAll('ol.messages li')].length === 2"
            f" && [...{PANEL}.querySelectorAll('ol.messages li')].map((li) => li.innerText)"
            ".find((text) => text.includes('Fixed'))"
        )
        assert "Ada Lovelace" in shown and "Ada Lovelace: Fixed in <b>1.2</b>" in shown
        assert await tab.run(f"{PANEL}.querySelectorAll('ol.messages b').length") == 0
    comments = await (await at.comments(bug_id)).json()
    assert [c["body"]["content"] for c in comments["value"]] == [
        "Ada Lovelace: Fixed in &lt;b&gt;1.2&lt;/b&gt;"
    ]

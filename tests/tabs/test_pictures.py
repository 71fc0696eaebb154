"""The README's pictures of the board and the personal tab, drawn by Chromium from a realistic
channel. Every run draws them (a page that fails to draw fails here); `TABS_PICTURES=docs/tabs`
keeps them there: `TABS_PICTURES=docs/tabs .venv/bin/python -m pytest tests/tabs/test_pictures.py`.
"""

import base64
import os
import shutil
from pathlib import Path

from tests.factories import Factory
from tests.pages.chromium import Browser
from tests.tabs.browser import Tab, open_tab
from tests.tabs.conftest import ROOT, Rig

READY = "document.querySelector('main').getAttribute('aria-busy') === 'false'"
PNG = b"\x89PNG\r\n\x1a\n"


async def picture(tab: Tab, path: Path) -> None:
    shot = await tab.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    path.write_bytes(base64.b64decode(shot["data"]))


async def test_the_board_and_the_personal_tab_are_drawn(
    rig: Rig, browser: Browser, factory: Factory, tmp_path: Path
) -> None:
    grace = await factory.member("Grace Hopper")
    ada, grace_id = rig.member.user.id, grace.user.id
    seeds = [
        (
            "Login fails with an SSO token from a guest tenant",
            "Urgent",
            "In Progress",
            [ada],
            "2026-11-20",
        ),
        ("Export to CSV drops the last row", "High", "Not Started", [grace_id], "2026-12-20"),
        (
            "Dark theme: low contrast on the due date",
            "Normal",
            "Not Started",
            [ada, grace_id],
            None,
        ),
        ("Search ignores accented letters", "Low", "Not Started", [], None),
        ("Attachment names with emoji are cut", "Normal", "In Progress", [grace_id], "2027-01-15"),
        ("Board columns overflow on small screens", "High", "Completed", [ada], "2026-11-30"),
    ]
    for name, priority, status, assignees, due in seeds:
        fields = {
            "priority": priority,
            "status": status,
            "assignedTo": [{"_id": a} for a in assignees],
        }
        if due:
            fields["dueDate"] = due
        await rig.bug(name, **fields)
    pages = {"board.png": rig.channel_url(), "me.png": f"{rig.base}/tabs/me"}
    for name, url in pages.items():
        async with open_tab(browser, url, rig.member.cookie) as tab:
            await tab.until(READY)
            await picture(tab, tmp_path / name)
        assert (tmp_path / name).read_bytes().startswith(PNG)
    keep = os.environ.get("TABS_PICTURES")
    if keep:
        for name in pages:
            shutil.copy(tmp_path / name, ROOT / keep / name)

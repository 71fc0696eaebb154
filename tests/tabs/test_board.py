"""The channel tab's board in Chromium: columns per status with counts, cards moved by mouse and
by keyboard (the API agrees), a refused move goes back with the API's reason."""

from tests.pages.chromium import Browser
from tests.tabs.browser import open_tab
from tests.tabs.conftest import Rig

COLUMN = 'section.column[data-status="{}"]'
CARD = 'li.card[data-id="{}"]'


async def test_the_board_shows_a_column_per_status_and_moves_a_card_with_the_mouse(
    rig: Rig, browser: Browser
) -> None:
    first = await rig.bug("Login fails", priority="Urgent")
    await rig.bug("Slow search")
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until("document.querySelectorAll('li.card').length === 2")
        headings = await tab.texts("section.column h2")
        assert [" ".join(h.split()) for h in headings] == [
            "Not Started 2",
            "In Progress 0",
            "Completed 0",
        ]
        assert await tab.run(
            "document.querySelector('section.column ul').getAttribute('aria-labelledby') !== null"
        )

        await tab.drag(CARD.format(first["_id"]), COLUMN.format("In Progress") + " ul")
        await tab.until(
            f"document.querySelector('{COLUMN.format('In Progress')} {CARD.format(first['_id'])}')"
        )
        await tab.until("document.getElementById('announce').textContent.includes('Moved Bug 1')")
        details = await rig.api("GET", f"/api/bugs/{first['_id']}/details")
        assert details["status"] == "In Progress"
        assert tab.exceptions() == []

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


async def test_the_keyboard_moves_a_card_and_the_move_is_announced(
    rig: Rig, browser: Browser
) -> None:
    bug = await rig.bug("Crash on save")
    card = CARD.format(bug["_id"])
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until(f"document.querySelector('{card}')")
        await tab.run(f"document.querySelector('{card}').focus()")
        await tab.press(" ")
        await tab.until("document.getElementById('announce').textContent.includes('Picked up')")
        await tab.press("ArrowRight")
        await tab.press("ArrowRight")
        await tab.until("document.getElementById('announce').textContent === 'Over Completed'")
        await tab.press(" ")
        await tab.until(f"document.querySelector('{COLUMN.format('Completed')} {card}')")
        await tab.until("document.getElementById('announce').textContent.includes('Moved Bug 1')")
        assert await tab.run(f"document.activeElement === document.querySelector('{card}')")
        details = await rig.api("GET", f"/api/bugs/{bug['_id']}/details")
        assert details["status"] == "Completed"
        assert details["completedDate"] is not None

        # Escape puts a picked-up card down where it was.
        await tab.press(" ")
        await tab.press("ArrowLeft")
        await tab.press("Escape")
        await tab.until("document.getElementById('announce').textContent.includes('stays in')")
        assert (await rig.api("GET", f"/api/bugs/{bug['_id']}/details"))["status"] == "Completed"


async def test_a_move_the_mapping_rule_refuses_goes_back_with_the_reason(
    rig: Rig, browser: Browser
) -> None:
    board = await rig.api(
        "POST",
        "/api/projects",
        json={
            "source": "Jira",
            "displayName": "Roadmap board",
            "sourceId": "RB",
            "hostname": "contoso.atlassian.net",
            "states": [
                {"id": "1", "name": "To Do", "category": "New"},
                {"id": "3", "name": "In Progress", "category": "Active"},
                {"id": "10001", "name": "Done", "category": "Done"},
            ],
        },
    )  # a project of bugs (a Planner plan takes tasks only)
    await rig.api(
        "POST", "/odata/status", json={"name": "Blocked", "type": "Bug", "category": "Active"}
    )
    bug = await rig.bug("Synced bug", projectId=board["_id"])
    card = CARD.format(bug["_id"])
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until(f"document.querySelector('{COLUMN.format('Blocked')}')")
        await tab.drag(card, COLUMN.format("Blocked") + " ul")
        reason = await tab.until(
            f"document.querySelector('{COLUMN.format('Not Started')} {card} "
            ".refusal:not([hidden])')?.textContent"
        )
        assert "not mapped to a status of project 'Roadmap board'" in reason
        assert reason.startswith("Not moved: status: 'Blocked'")
        assert await tab.text(f"{COLUMN.format('Blocked')} h2 .count") == "0"
        assert (await rig.api("GET", f"/api/bugs/{bug['_id']}/details"))["status"] == "Not Started"


async def test_invalid_items_sit_in_their_own_column_that_takes_no_drop(
    rig: Rig, browser: Browser
) -> None:
    status = await rig.api(
        "POST", "/odata/status", json={"name": "Doomed", "type": "Bug", "category": "Active"}
    )
    lost = await rig.bug("Lost its status", status="Doomed")
    other = await rig.bug("Movable")
    await rig.api("DELETE", f"/odata/status('{status['_id']}')")
    async with open_tab(browser, rig.channel_url(), rig.member.cookie) as tab:
        await tab.until(
            f"document.querySelector('{COLUMN.format('Invalid')} {CARD.format(lost['_id'])}')"
        )
        await tab.drag(CARD.format(other["_id"]), COLUMN.format("Invalid") + " ul")
        await tab.until(
            f"document.querySelector('{COLUMN.format('Not Started')} {CARD.format(other['_id'])}')"
        )
        assert await tab.text(f"{COLUMN.format('Invalid')} h2 .count") == "1"
        assert (await rig.api("GET", f"/api/bugs/{other['_id']}/details"))[
            "status"
        ] == "Not Started"

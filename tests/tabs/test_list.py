"""The channel tab's list in Chromium: the API's filters and sort, kept in the URL across a
reload; bulk edit of two rows with each item's result shown."""

import json

from tests.pages.chromium import Browser
from tests.tabs.browser import Tab, open_tab
from tests.tabs.conftest import Rig

ROWS = "[...document.querySelectorAll('table.items tbody tr')].map((r) => r.cells[2].innerText)"


async def choose(tab: Tab, name: str, value: str, within: str = "form.filters") -> None:
    """Pick an option of a select as a person does: the select changes, then tells the page."""
    select = json.dumps(f"{within} select[name={name}]")
    await tab.run(
        f"""(() => {{ const s = document.querySelector({select});
        s.value = {json.dumps(value)};
        s.dispatchEvent(new Event('change', {{ bubbles: true }})); }})()"""
    )


async def test_filters_and_sort_live_in_the_url_and_survive_a_reload(
    rig: Rig, browser: Browser
) -> None:
    await rig.bug("Alpha crash", priority="High")
    await rig.bug("Beta crash", priority="Low")
    await rig.bug("Gamma crash", priority="High")
    await rig.bug("Delta typo", priority="High")
    async with open_tab(browser, rig.channel_url(view="list"), rig.member.cookie) as tab:
        await tab.until(f"{ROWS}.length === 4")
        await choose(tab, "priority", "High")
        await tab.until(f"{ROWS}.length === 3")
        await tab.run("document.querySelector('input[name=q]').focus()")
        await tab.type("crash")
        await tab.press("Enter")
        await tab.until(f"{ROWS}.length === 2")
        await choose(tab, "sort", "name desc")
        await tab.until(f"{ROWS}.join() === 'Gamma crash,Alpha crash'")
        url = await tab.run("location.search")
        assert "priority=High" in url and "q=crash" in url and "sort=name+desc" in url

        await tab.reload()
        await tab.until(f"{ROWS}.join() === 'Gamma crash,Alpha crash'")
        assert await tab.run("document.querySelector('select[name=priority]').value") == "High"
        assert await tab.run("document.querySelector('input[name=q]').value") == "crash"
        header = "document.querySelector('th[aria-sort]')"
        assert await tab.run(f"{header}.innerText + ' ' + {header}.getAttribute('aria-sort')") == (
            "Title descending"
        )


async def test_paging_follows_the_next_link(rig: Rig, browser: Browser) -> None:
    for number in range(52):
        await rig.bug(f"Bug {number:02}")
    async with open_tab(browser, rig.channel_url(view="list"), rig.member.cookie) as tab:
        await tab.until(f"{ROWS}.length === 50")
        assert await tab.text("table.items caption") == "Bugs: 52 found"
        await tab.run("document.querySelector('button.more').click()")
        await tab.until(f"{ROWS}.length === 52 && !document.querySelector('button.more')")
        assert len(set(await tab.run(ROWS))) == 52


async def test_bulk_edit_of_two_items_shows_each_result(rig: Rig, browser: Browser) -> None:
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
    native = await rig.bug("Native bug")
    synced = await rig.bug("Synced bug", projectId=board["_id"])
    async with open_tab(browser, rig.channel_url(view="list"), rig.member.cookie) as tab:
        await tab.until(f"{ROWS}.length === 2")
        for label in ("Choose Bug #1", "Choose Bug #2"):
            await tab.run(f"document.querySelector('input[aria-label=\"{label}\"]').click()")
        await tab.until("document.querySelector('form.bulk')?.innerText.includes('2 chosen')")
        await choose(tab, "status", "Blocked", within="form.bulk")
        await tab.run("document.querySelector('form.bulk button[type=submit]').click()")
        results = await tab.until(
            "document.querySelector('section.results')?.innerText.includes('Synced bug')"
            " && [...document.querySelectorAll('section.results li')].map((li) => li.innerText)"
        )
        assert "Native bug: changed" in results
        assert "Synced bug: not changed, that status or severity is not mapped for its project" in (
            results
        )
        assert (await rig.api("GET", f"/api/bugs/{native['_id']}/details"))["status"] == "Blocked"
        synced_now = await rig.api("GET", f"/api/bugs/{synced['_id']}/details")
        assert synced_now["status"] == "Not Started"
        await tab.until(
            "[...document.querySelectorAll('table.items tbody tr')].some("
            "(r) => r.innerText.includes('Native bug') && r.innerText.includes('Blocked'))"
        )

"""The personal tab lists only my items from channels I may read, overdue and due soon first;
an open tab shows a change made elsewhere without a reload."""

from datetime import timedelta
from pathlib import Path

from bot.clock import FrozenClock
from tests.factories import Factory
from tests.pages.chromium import Browser, chromium
from tests.tabs.browser import open_tab
from tests.tabs.conftest import Rig

ROWS = "[...document.querySelectorAll('table.items tbody tr')].map((r) => r.cells[1].innerText)"
READ_BY_ID = "performance.getEntriesByType('resource').filter((e) => e.name.includes('_id'))"
TEAM_B, CHANNEL_B = "19:team-b@thread.tacv2", "19:channel-b@thread.tacv2"
TEAM_C, CHANNEL_C = "19:team-c@thread.tacv2", "19:channel-c@thread.tacv2"


async def test_the_personal_tab_lists_my_items_overdue_first_and_never_another_teams(
    rig: Rig, browser: Browser, factory: Factory
) -> None:
    ada = rig.member
    mine = [{"_id": ada.user.id}]
    for team, channel, name in ((TEAM_B, CHANNEL_B, "Team B"), (TEAM_C, CHANNEL_C, "Team C")):
        await factory.team(team, name=name)
        await factory.channel(channel, team_id=team, name=f"{name} bugs")
    await factory.join(ada.user, TEAM_B)
    carol = await factory.member("Carol", team_id=TEAM_C)
    await rig.bug("Mine, later", assignedTo=mine, dueDate="2099-01-01")
    await rig.bug("Not mine")
    await rig.api(
        "POST",
        "/odata/bugs",
        headers_of=ada.in_channel(TEAM_B, CHANNEL_B),
        json={"name": "Mine, overdue, team B", "assignedTo": mine, "dueDate": "2020-01-01"},
    )
    await rig.api(
        "POST",
        "/odata/bugs",
        headers_of=carol.in_channel(TEAM_C, CHANNEL_C),
        json={"name": "Carol's, team C", "assignedTo": [{"_id": carol.user.id}]},
    )
    async with open_tab(browser, f"{rig.base}/tabs/me", ada.cookie) as tab:
        await tab.until(f"{ROWS}.length === 2")
        assert await tab.run(ROWS) == ["Mine, overdue, team B", "Mine, later"]
        assert "Overdue" in await tab.text("table.items tbody tr")
        channels = await tab.run(
            "[...document.querySelectorAll('select[name=channel] option')].map((o) => o.text)"
        )
        assert channels == ["Every channel", "Team A › Bugs", "Team B › Team B bugs"]
        await tab.run("document.querySelector('table.items .title').click()")
        await tab.until(
            "document.querySelector('dialog.panel[open] input[name=name]')?.value"
            " === 'Mine, overdue, team B'"
        )


async def test_an_open_board_shows_changes_made_elsewhere_without_a_reload(
    rig: Rig, browser: Browser, clock: FrozenClock, tmp_path: Path
) -> None:
    """The channel tab follows the channel's change stream (it polls nothing): a move in
    another tab, a change through the API and a new item each show, each read alone (the board
    of 1,000 is not read again for one change), and the mover's own card is left as it is."""
    bug = await rig.bug("Watched bug")
    card = f'li.card[data-id="{bug["_id"]}"]'
    board = rig.channel_url()
    async with (
        chromium(tmp_path / "second") as second,
        open_tab(browser, board, rig.member.cookie) as mover,
        open_tab(second, board, rig.member.cookie) as watcher,
    ):
        await watcher.until(f"document.querySelector('{card}')")
        await mover.until(f"document.querySelector('{card}')")
        clock.advance(timedelta(seconds=1))
        await mover.drag(card, 'section.column[data-status="Completed"] ul')
        await mover.until("document.getElementById('announce').textContent.includes('Moved')")
        await mover.run(f"document.querySelector('{card}').dataset.seen = 'before the stream'")
        # The mover reads its moved item when the stream tells of it, and finds nothing to draw.
        await mover.until(f"{READ_BY_ID}.length === 1")
        assert await mover.run(f"document.querySelector('{card}').dataset.seen") == (
            "before the stream"
        )
        await watcher.until(
            f"document.querySelector('section.column[data-status=\"Completed\"] {card}')"
        )
        clock.advance(timedelta(seconds=1))
        await rig.api("PATCH", f"/odata/bugs('{bug['_id']}')", json={"name": "Renamed by the API"})
        await watcher.until(
            f"document.querySelector('{card} .title').textContent === 'Renamed by the API'"
        )
        await rig.bug("Created by the API")
        await watcher.until("document.querySelectorAll('li.card').length === 2")
        asked = await watcher.run(
            "performance.getEntriesByType('resource').map((entry) => entry.name)"
        )
        assert not any("orderby=updatedAt" in url for url in asked)  # told, not polled
        whole_board = [url for url in asked if url.endswith("/odata/bugs?$top=1000")]
        assert len(whole_board) == 1, whole_board


async def test_an_open_personal_tab_shows_changes_made_elsewhere_without_a_reload(
    rig: Rig, browser: Browser
) -> None:
    """The personal tab follows the stream of the lists its user may read (it polls nothing): an
    item assigned elsewhere appears, and a rename through the API shows."""
    mine = [{"_id": rig.member.user.id}]
    first = await rig.bug("Mine from the start", assignedTo=mine)
    async with open_tab(browser, f"{rig.base}/tabs/me", rig.member.cookie) as tab:
        await tab.until(f"{ROWS}.length === 1")
        await rig.bug("Assigned to me elsewhere", assignedTo=mine)
        await tab.until(f"{ROWS}.includes('Assigned to me elsewhere')")
        await rig.api(
            "PATCH", f"/odata/bugs('{first['_id']}')", json={"name": "Renamed by the API"}
        )
        await tab.until(f"{ROWS}.includes('Renamed by the API')")
        asked = await tab.run("performance.getEntriesByType('resource').map((entry) => entry.name)")
    assert not any("orderby=updatedAt" in url for url in asked)  # told, not polled

"""The channel tab's board of 1,000 bugs in headless Chromium (issue 31), driven as `tests/tabs`
drives it (Debian's Chromium over the DevTools protocol), against `python app.py`:

- navigation → the board drawn: the page's own `tabs:ready` mark (every column, every card),
  and the items' list request within it (Resource Timing);
- a click answered: a card's title clicked → the item panel open with its fields;
- a keyboard move: Space pressed to drop a picked-up card on the next column → the API's
  answer → the move announced (and that PATCH's own time, from Resource Timing);
- a change elsewhere: a PATCH through the API → the new title shown in the open tab.

Beside them, ceilings from the same run: a static file from the same server loaded as a page
(navigation → load), and the same PATCH sent straight from this process.
"""

import asyncio
import json
import statistics
import sys
import time
import urllib.parse
from pathlib import Path
from typing import Any

import aiohttp

from bench import items_data
from bench.harness import print_reports
from bench.items import app_on
from tests.pages.chromium import chromium
from tests.tabs.browser import WAIT, Tab, open_tab

BUGS = 1000
LOADS, CLICKS, MOVES, CHANGES = 12, 12, 30, 30
LOST_AFTER_S = 3
PANEL = "document.querySelector('dialog.panel[open]')"
ANNOUNCED = "document.getElementById('announce').textContent"
# Times each drop (the Space that drops a picked-up card) to the announcement of its move.
MOVE_TIMER = """(() => {
  window.benchMoves = [];
  window.benchDropping = false;
  document.addEventListener("keydown", (event) => {
    if (event.key === " " && window.benchDropping) window.benchDrop = performance.now();
  }, true);
  const announce = document.getElementById("announce");
  new MutationObserver(() => {
    if (window.benchDrop && announce.textContent.startsWith("Moved")) {
      window.benchMoves.push(performance.now() - window.benchDrop);
      window.benchDrop = null;
    }
  }).observe(announce, { childList: true, characterData: true, subtree: true });
  return true;
})()"""


# A card of a column with another to its right that takes drops.
FIRST_MOVABLE = """(() => {
  const columns = [...document.querySelectorAll("section.column")];
  const from = columns.find((column, n) => column.querySelector("li.card")
    && columns[n + 1] && columns[n + 1].dataset.status !== "Invalid");
  return from.querySelector("li.card").dataset.id;
})()"""


def measure(kind: str) -> dict[str, Any]:
    with app_on(kind, items_data.dataset(BUGS, 0, name="board")) as served:
        return asyncio.run(_in_browser(served.app.base, served.headers, served.folder))


async def _in_browser(base: str, headers: dict[str, str], folder: Path) -> dict[str, Any]:
    cookie = headers["Cookie"].split("=", 1)[1]
    where = {"teamId": headers["x-svc-teamid"], "channelId": headers["x-svc-channelId"]}
    url = f"{base}/tabs/channel?{urllib.parse.urlencode(where)}"
    results: dict[str, Any] = {}
    async with chromium(folder / "profile") as browser, open_tab(browser, url, cookie) as tab:
        results["ready"], results["list"] = await _loads(tab, url)
        results["click"] = await _clicks(tab)
        results["move"], results["move_patch"] = await _moves(tab)
        async with aiohttp.ClientSession(base_url=base, headers=headers) as http:
            results["change"] = await _changes(tab, http)
            results["api_patch"] = await _patches(http)
        results["static"] = await _static_loads(tab, f"{base}/tabs/assets/tabs.css")
    return results


async def _loads(tab: Tab, url: str) -> tuple[list[float], list[float]]:
    """Navigation → `tabs:ready`, and the list request's own time, per load."""
    ready, listed = [], []
    for _ in range(LOADS):
        await tab.navigate(url)
        ready.append(await tab.until("performance.getEntriesByName('tabs:ready')[0]?.startTime"))
        cards = await tab.run("document.querySelectorAll('li.card').length")
        assert cards >= BUGS, f"the board shows {cards} cards, not {BUGS} or more"
        listed.append(
            await tab.run(
                "performance.getEntriesByType('resource')"
                ".find((e) => e.name.includes('$top=1000')).duration"
            )
        )
    return ready, listed


async def _clicks(tab: Tab) -> list[float]:
    """A card's title clicked → the panel open with the item's name in its form."""
    times = []
    for index in range(CLICKS):
        times.append(
            await tab.run(
                f"""(async () => {{
                const title = document.querySelectorAll('li.card button.title')[{index * 7}];
                const started = performance.now();
                title.click();
                await {WAIT % (PANEL + "?.querySelector('input[name=name]')?.value")};
                return performance.now() - started;
                }})()"""
            )
        )
        await tab.press("Escape")
        await tab.until(f"!{PANEL}")
    return times


async def _moves(tab: Tab) -> tuple[list[float], list[float]]:
    """Drop after drop of one card between the first two columns: Space → announced; and each
    move's PATCH as the page saw it."""
    await tab.run(MOVE_TIMER)
    card_id = await tab.run(FIRST_MOVABLE)
    card = f"document.querySelector('li.card[data-id=\"{card_id}\"]')"
    first = await tab.run(f"{card}.closest('section.column').dataset.status")
    patches, lost = [], 0
    for move in range(MOVES):
        # Right from its first column, back left from the next.
        column = await tab.run(f"{card}.closest('section.column').dataset.status")
        arrow = "ArrowRight" if column == first else "ArrowLeft"
        while not await _pick_and_point(tab, card, arrow):
            lost += 1
            if lost > MOVES:
                raise RuntimeError(f"the page lost {lost} picked-up cards in {move + 1} moves")
        await tab.run("window.benchDropping = true")
        await tab.press(" ")
        await tab.until(f"window.benchMoves.length === {move + 1}")
        await tab.run("window.benchDropping = false")
        patches.append(  # the PATCH's address ends with the key; the stream's read of it does not
            await tab.run(
                "performance.getEntriesByType('resource')"
                f".filter((e) => e.name.endsWith(\"('{card_id}')\")).at(-1).duration"
            )
        )
    print(f"  (keyboard moves: {lost} picks lost and done again)", flush=True)
    return list(await tab.run("window.benchMoves")), patches


async def _pick_and_point(tab: Tab, card: str, arrow: str) -> bool:
    """The card picked up with Space and held over the next column; False when the page lost
    the pick (a redraw took the focus meanwhile): the pick is put down to be done again."""
    await tab.run(f"{card}.focus()")
    await tab.press(" ")
    await tab.until(f"{ANNOUNCED}.startsWith('Picked up')")
    await tab.press(arrow)
    try:
        async with asyncio.timeout(LOST_AFTER_S):
            await tab.run(WAIT % f"{ANNOUNCED}.startsWith('Over')")
    except TimeoutError:
        await tab.run(f"{card}.focus()")
        await tab.press("Escape")
        return False
    return True


async def _changes(tab: Tab, http: aiohttp.ClientSession) -> list[float]:
    """A title changed through the API → shown on its card in the open tab."""
    card_id = await tab.run("document.querySelectorAll('li.card')[3].dataset.id")
    times = []
    for change in range(CHANGES):
        name = f"Changed elsewhere {change}"
        card = f"document.querySelector('li.card[data-id=\"{card_id}\"]')"
        shown = f"{card}?.innerText.includes({json.dumps(name)})"
        started = time.perf_counter()
        waiting = asyncio.create_task(tab.until(shown))
        await asyncio.sleep(0)  # the wait is asked of the page before the change is made
        await _patch(http, card_id, {"name": name})
        await waiting
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _patches(http: aiohttp.ClientSession) -> list[float]:
    """The move's PATCH sent straight from here: the server's answer alone."""
    async with http.get("/odata/bugs", params={"$top": "1", "$select": "_id"}) as response:
        item_id = (await response.json())["value"][0]["_id"]
    times = []
    for move in range(MOVES):
        started = time.perf_counter()
        status = "In Progress" if move % 2 == 0 else "Not Started"
        await _patch(http, item_id, {"status": status})
        times.append((time.perf_counter() - started) * 1000)
    return times


async def _patch(http: aiohttp.ClientSession, item_id: str, body: dict[str, Any]) -> None:
    async with http.patch(f"/odata/bugs('{item_id}')", json=body) as response:
        assert response.status < 300, await response.text()


async def _static_loads(tab: Tab, url: str) -> list[float]:
    """A static file from the same server as a page: navigation → its load event's end."""
    times = []
    for _ in range(LOADS):
        await tab.navigate(url)
        times.append(await tab.until("performance.getEntriesByType('navigation')[0]?.loadEventEnd"))
    return times


def _p(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(kind: str, results: dict[str, Any]) -> list[str]:
    lines = [f"{kind}: ms, p50 / p95 (max) of each"]
    names = {
        "ready": "navigation → board drawn (tabs:ready)",
        "list": "  of which the list request",
        "static": "ceiling: a static file as a page",
        "click": "a click → the item panel open",
        "move": "keyboard move: Space → announced",
        "move_patch": "  of which its PATCH (as the page saw it)",
        "api_patch": "ceiling: the same PATCH from the bench",
        "change": "a change by the API → shown in the tab",
    }
    for key, label in names.items():
        values = results[key]
        lines.append(
            f"  {label:42} {statistics.median(values):8.1f} / {_p(values, 0.95):8.1f}"
            f" ({max(values):.1f}), n={len(values)}"
        )
    return lines


if __name__ == "__main__":
    print_reports(measure, report, sys.argv[1:])

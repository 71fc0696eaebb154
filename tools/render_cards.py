"""`make cards`: each card of tools/card_gallery.py rendered as Teams shows it, to PNG.

    python -m tools.render_cards [OUT_DIR]    (default docs/cards; other PNGs there are removed)

Microsoft's Adaptive Cards library (npm `adaptivecards`, installed by the Makefile under
.venv/npm) renders each card with a Teams-like host config (tests/cards/teams_host_config.json:
Teams' light theme) in headless Chromium, driven over the DevTools protocol like the browser
tests (tests/pages/chromium.py); each picture is cut to the card. A card asking for Teams' full
width (`msteams`) gets a wider frame; the list card is also shown as a phone and a laptop's chat
show it (NARROWER). Each is laid out for its frame's width as Teams does (`cards.widths`: the
elements whose `targetWidth` excludes that width left out), which the library does not do.
"""

import asyncio
import base64
import itertools
import json
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from cards.layout import Card
from cards.widths import laid_out, width_of
from tests.pages.chromium import EXECUTABLE, chromium
from tools.card_gallery import gallery

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = (
    ROOT / ".venv" / "npm" / "node_modules" / "adaptivecards" / "dist" / "adaptivecards.min.js"
)
HOST_CONFIG = ROOT / "tests" / "cards" / "teams_host_config.json"
OUT = ROOT / "docs" / "cards"
WIDTH = 440  # a card in a Teams conversation
FULL_WIDTH = 720  # one asking for the full width, on a laptop's Teams window
PHONE_WIDTH = 400  # a card on a phone held upright
# Pictures of a gallery card in a narrower frame: {picture: (card, frame width)}.
NARROWER = {"list-narrow": ("list", PHONE_WIDTH), "list-standard": ("list", WIDTH)}
MARGIN = 12  # the conversation's grey around the card
LOAD_SECONDS = 20

# Teams' buttons and inputs (the library's own stylesheet is a generic web look).
STYLE = """
body { margin: 0; background: #F5F5F5; }
#frame { display: inline-block; padding: %(margin)dpx; }
#card { width: %(width)dpx; background: #FFFFFF; border-radius: 4px; overflow: hidden;
        box-shadow: 0 1px 2px rgba(0, 0, 0, .14), 0 0 2px rgba(0, 0, 0, .12); }
#card * { box-sizing: border-box; }
.ac-pushButton { height: 32px; padding: 0 12px; border-radius: 4px; font: 600 14px %(font)s;
                 background: #FFFFFF; color: #242424; border: 1px solid #D1D1D1;
                 white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ac-pushButton.style-positive { background: #5B5FC7; color: #FFFFFF; border-color: #5B5FC7; }
.ac-input { font: 14px %(font)s; color: #242424; }
.ac-textInput, .ac-numberInput, .ac-dateInput, .ac-timeInput, .ac-choiceSetInput-compact {
    width: 100%%; min-height: 32px; padding: 4px 8px; background: #FFFFFF;
    border: 1px solid #D1D1D1; border-bottom-color: #616161; border-radius: 4px; }
.ac-textInput.ac-multiline { height: 64px; }
.ac-choiceSetInput-multiSelect, .ac-toggleInput { accent-color: #5B5FC7; }
"""
PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>%(style)s</style>
<script src="%(library)s"></script></head>
<body><div id="frame"><div id="card"></div></div>
<script>
const card = new AdaptiveCards.AdaptiveCard();
card.hostConfig = new AdaptiveCards.HostConfig(%(host_config)s);
card.parse(%(card)s);
document.getElementById("card").appendChild(card.render());
</script></body></html>
"""
# Where the card ended up, once the page's fonts are in.
MEASURE = """document.fonts.ready.then(() => {
  const box = document.getElementById("frame").getBoundingClientRect();
  return {x: box.x, y: box.y, width: box.width, height: box.height};
})"""


def frame_width(card: Card) -> int:
    """The width Teams gives the card in a conversation on a laptop."""
    return FULL_WIDTH if card.get("msteams", {}).get("width") == "Full" else WIDTH


def page(card: Card, host_config: dict[str, Any], width: int) -> str:
    """The card in a frame `width` pixels wide, laid out for that width."""
    shown = laid_out(card, width_of(width))
    font = host_config["fontFamily"]
    style = STYLE % {"margin": MARGIN, "width": width, "font": font}
    return PAGE % {
        "style": style,
        "library": LIBRARY.as_uri(),
        "host_config": json.dumps(host_config),
        "card": json.dumps(shown),
    }


class Tab:
    """One tab's DevTools session: a command and its answer, events waited for by name."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._events: list[str] = []

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        await self._ws.send_json({"id": number, "method": method, "params": params})
        while True:
            message = await self._ws.receive_json()
            if "method" in message:
                self._events.append(message["method"])
            elif message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    async def wait_for(self, event: str) -> None:
        while event not in self._events:
            message = await self._ws.receive_json()
            if "method" in message:
                self._events.append(message["method"])

    async def open(self, url: str) -> None:
        """Load the page at `url` and wait for it."""
        await self.call("Page.enable")
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            width=FULL_WIDTH + 2 * MARGIN,
            height=600,
            deviceScaleFactor=1,
            mobile=False,
        )
        self._events.clear()
        await self.call("Page.navigate", url=url)
        await self.wait_for("Page.loadEventFired")

    async def evaluate(self, expression: str) -> Any:
        """What a script (a promise's value, if it makes one) gives, as JSON."""
        answer = await self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        return answer["result"]["value"]

    async def screenshot(self) -> bytes:
        """The page open, cut to the card's frame."""
        box = await self.evaluate(MEASURE)
        shot = await self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={**box, "scale": 1},
        )
        return base64.b64decode(shot["data"])


async def each_card(cards: dict[str, tuple[Card, int]]) -> AsyncIterator[tuple[str, Tab]]:
    """Each card, in a frame of its width, open in a tab of one browser."""
    host_config = json.loads(HOST_CONFIG.read_text())
    with tempfile.TemporaryDirectory() as scratch:
        async with chromium(Path(scratch) / "profile") as browser:
            for name, (card, width) in cards.items():
                html = Path(scratch) / f"{name}.html"
                html.write_text(page(card, host_config, width))
                async with browser.http.put(f"{browser.base}/json/new?about:blank") as response:
                    target = await response.json()
                try:
                    async with browser.http.ws_connect(
                        target["webSocketDebuggerUrl"], max_msg_size=0
                    ) as ws:
                        tab = Tab(ws)
                        async with asyncio.timeout(LOAD_SECONDS):
                            await tab.open(html.as_uri())
                            yield name, tab
                finally:
                    async with browser.http.get(f"{browser.base}/json/close/{target['id']}"):
                        pass


async def render(cards: dict[str, tuple[Card, int]], out: Path) -> list[Path]:
    """Each card, in a frame of its width, to OUT/<name>.png."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    async for name, tab in each_card(cards):
        path = out / f"{name}.png"
        path.write_bytes(await tab.screenshot())
        written.append(path)
    for stale in set(out.glob("*.png")) - set(written):  # a card no longer in the gallery
        stale.unlink()
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else OUT
    if EXECUTABLE is None:
        print("Chromium is not installed (`make chromium` installs it)", file=sys.stderr)
        return 1
    if not LIBRARY.exists():
        print(f"{LIBRARY} is missing (`make cards` installs it)", file=sys.stderr)
        return 1
    cards = gallery()
    framed = {name: (card, frame_width(card)) for name, card in cards.items()}
    framed |= {name: (cards[card], width) for name, (card, width) in NARROWER.items()}
    for path in asyncio.run(render(framed, out)):
        print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: "
              f"{path.stat().st_size // 1024} KB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A tab kept open in headless Chromium (tests/pages/chromium.py starts the browser) for tests
that act on a page: run script in it, wait until its DOM shows something, press keys, drag with
the mouse, reload; every request the page made is kept, to tell where it loaded from."""

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp

from tests.pages.chromium import Browser
from tests.waiting import PATIENCE

# Resolves once the condition holds: checked now and after every change to the DOM.
WAIT = """new Promise((resolve) => {
  const check = () => { try { return (%s); } catch { return false; } };
  const first = check();
  if (first) return resolve(first);
  const observer = new MutationObserver(() => {
    const met = check();
    if (met) { observer.disconnect(); resolve(met); }
  });
  const all = { subtree: true, childList: true, attributes: true, characterData: true };
  observer.observe(document, all);
})"""

KEYS = {
    " ": ("Space", 32),
    "Enter": ("Enter", 13),
    "Escape": ("Escape", 27),
    "ArrowLeft": ("ArrowLeft", 37),
    "ArrowRight": ("ArrowRight", 39),
    "ArrowUp": ("ArrowUp", 38),
    "ArrowDown": ("ArrowDown", 40),
}


@asynccontextmanager
async def open_tab(browser: Browser, url: str, cookie: str | None) -> AsyncIterator["Tab"]:
    async with browser.http.put(f"{browser.base}/json/new?about:blank") as response:
        target = await response.json()
    try:
        async with browser.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            tab = Tab(ws)
            await tab.start(url, cookie)
            yield tab
    finally:
        async with browser.http.get(f"{browser.base}/json/close/{target['id']}"):
            pass


class Tab:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._loaded = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, url: str, cookie: str | None) -> None:
        self._reader = asyncio.create_task(self._read())
        for domain in ("Page", "Network", "Runtime"):
            await self.call(f"{domain}.enable")
        await self.call("Network.clearBrowserCookies")
        # A desktop Teams window: every column of a board on screen.
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            width=1600,
            height=1000,
            deviceScaleFactor=1,
            mobile=False,
        )
        if cookie:
            await self.call("Network.setCookie", name="graphNodeCookie", value=cookie, url=url)
        await self.navigate(url)

    async def navigate(self, url: str) -> None:
        self._loaded.clear()
        await self.call("Page.navigate", url=url)
        await self._wait_loaded()

    async def reload(self) -> None:
        self._loaded.clear()
        await self.call("Page.reload")
        await self._wait_loaded()

    async def _wait_loaded(self) -> None:
        async with asyncio.timeout(PATIENCE):
            await self._loaded.wait()

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        answer = self._answers[number] = asyncio.get_running_loop().create_future()
        try:
            await self._ws.send_json({"id": number, "method": method, "params": params})
            async with asyncio.timeout(PATIENCE):
                message = await answer
        finally:
            # A call given up (its caller's own timeout) may still be answered later: the
            # answer then finds nobody waiting, and is dropped.
            self._answers.pop(number, None)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        result: dict[str, Any] = message.get("result", {})
        return result

    async def _read(self) -> None:
        try:
            async for frame in self._ws:
                message = json.loads(frame.data)
                if "id" in message:
                    waiting = self._answers.get(message["id"])
                    if waiting is not None and not waiting.done():
                        waiting.set_result(message)
                else:
                    self.events.append(message)
                    if message["method"] == "Page.loadEventFired":
                        self._loaded.set()
        finally:
            # No more answers will come: every call still waiting fails now, saying why.
            for waiting in self._answers.values():
                if not waiting.done():
                    waiting.set_exception(RuntimeError("the browser's DevTools connection ended"))

    async def run(self, expression: str) -> Any:
        """The expression's value in the page (awaited when it is a promise)."""
        answer = await self.call(
            "Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True
        )
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    async def until(self, condition: str) -> Any:
        """The condition's value once it holds in the page; a page that never gets there fails
        the test with what it showed."""
        try:
            async with asyncio.timeout(PATIENCE):
                return await self.run(WAIT % condition)
        except TimeoutError:
            shown = await self.run("document.body.innerText")
            raise AssertionError(f"the page never showed {condition}; it shows:\n{shown}") from None

    async def text(self, selector: str) -> str:
        return str(await self.run(f"document.querySelector({json.dumps(selector)}).innerText"))

    async def texts(self, selector: str) -> list[str]:
        found = await self.run(
            f"[...document.querySelectorAll({json.dumps(selector)})].map((e) => e.innerText)"
        )
        return list(found)

    async def press(self, key: str) -> None:
        code, number = KEYS[key]
        typed = {" ": " ", "Enter": "\r"}.get(key)
        down = {"text": typed} if typed else {}
        common = {"key": key, "code": code, "windowsVirtualKeyCode": number}
        await self.call("Input.dispatchKeyEvent", type="keyDown", **common, **down)
        await self.call("Input.dispatchKeyEvent", type="keyUp", **common)

    async def type(self, text: str) -> None:
        await self.call("Input.insertText", text=text)

    async def center(self, selector: str) -> tuple[float, float]:
        box = await self.run(
            f"""(() => {{ const r = document.querySelector({json.dumps(selector)})
            .getBoundingClientRect();
            return [r.x + r.width / 2, r.y + Math.min(r.height / 2, 40)]; }})()"""
        )
        return float(box[0]), float(box[1])

    async def drag(self, source: str, target: str) -> None:
        """Press the mouse on `source`, move it in steps to `target`, let go."""
        (x0, y0), (x1, y1) = await self.center(source), await self.center(target)
        mouse = "Input.dispatchMouseEvent"
        await self.call(mouse, type="mouseMoved", x=x0, y=y0)
        await self.call(mouse, type="mousePressed", x=x0, y=y0, button="left", clickCount=1)
        for step in range(1, 11):
            x, y = x0 + (x1 - x0) * step / 10, y0 + (y1 - y0) * step / 10
            await self.call(mouse, type="mouseMoved", x=x, y=y, button="left", buttons=1)
        await self.call(mouse, type="mouseReleased", x=x1, y=y1, button="left", clickCount=1)

    async def attach(self, selector: str, path: str) -> None:
        """Choose a file in a file input, as the file picker would."""
        found = await self.call(
            "Runtime.evaluate", expression=f"document.querySelector({json.dumps(selector)})"
        )
        await self.call("DOM.setFileInputFiles", files=[path], objectId=found["result"]["objectId"])

    def dialogs(self) -> list[str]:
        return [
            event["params"]["message"]
            for event in self.events
            if event["method"] == "Page.javascriptDialogOpening"
        ]

    def requested(self) -> list[str]:
        return [
            event["params"]["request"]["url"]
            for event in self.events
            if event["method"] == "Network.requestWillBeSent"
        ]

    def exceptions(self) -> list[str]:
        return [
            str(event["params"]["exceptionDetails"])
            for event in self.events
            if event["method"] == "Runtime.exceptionThrown"
        ]

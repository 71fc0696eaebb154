"""Headless Chromium (Debian's `chromium` package) driven over the DevTools protocol with aiohttp's
websocket client: open a page with a cookie, read what it shows, and tell whether a script ran.

No browser-automation package: the protocol's few calls below are all a page test needs, and
Debian's Chromium is the browser the issue asks for.
"""

import asyncio
import itertools
import os
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

EXECUTABLE = shutil.which("chromium") or shutil.which("chromium-browser")
START_SECONDS = 30
LOAD_SECONDS = 15


def require_chromium() -> str:
    """The browser's path; a test without it is skipped (outside CI) with how to install it."""
    if EXECUTABLE is None:
        reason = "Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI needs it", pytrace=False)
        pytest.skip(f"{reason}; browser tests skipped outside CI")
    return EXECUTABLE


@dataclass
class Visit:
    """What a page load gave: the document's status, what the page shows, and every JavaScript
    dialog (an `alert`) that opened, which a page that runs nothing never does."""

    status: int
    title: str
    text: str  # document.body.innerText, as a person reads it
    headings: list[str]
    elements: list[str]  # every element's tag name, lower case
    dialogs: list[str] = field(default_factory=list)


@asynccontextmanager
async def chromium(profile: Path) -> AsyncIterator["Browser"]:
    """A headless Chromium for the duration, with its own profile directory."""
    process = await asyncio.create_subprocess_exec(
        require_chromium(),
        "--headless",
        "--no-sandbox",  # the suite may run as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "about:blank",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        port = await _devtools_port(profile, process)
        async with aiohttp.ClientSession() as http:
            yield Browser(http, f"http://127.0.0.1:{port}")
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()


async def _devtools_port(profile: Path, process: asyncio.subprocess.Process) -> int:
    """The port Chromium chose, which it writes into its profile once it listens."""
    written = profile / "DevToolsActivePort"
    async with asyncio.timeout(START_SECONDS):
        while not (written.exists() and written.read_text().strip()):
            if process.returncode is not None:
                raise RuntimeError(f"chromium exited with {process.returncode}")
            await asyncio.sleep(0.05)
    return int(written.read_text().splitlines()[0])


@dataclass
class Browser:
    http: aiohttp.ClientSession
    base: str  # the DevTools HTTP endpoint

    async def visit(self, url: str, *, cookies: dict[str, str] | None = None) -> Visit:
        """Load `url` in a new tab with no cookie but `cookies` (for its site); read the page."""
        async with self.http.put(f"{self.base}/json/new?about:blank") as response:
            target = await response.json()
        try:
            async with self.http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                return await _Tab(ws).visit(url, cookies or {})
        finally:
            async with self.http.get(f"{self.base}/json/close/{target['id']}"):
                pass


READ_PAGE = """({
  title: document.title,
  text: document.body ? document.body.innerText : "",
  headings: [...document.querySelectorAll("h1")].map((h) => h.textContent),
  elements: [...document.querySelectorAll("*")].map((e) => e.tagName.toLowerCase()),
})"""


class _Tab:
    """One tab's DevTools session: commands answered by id, events kept as they come."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self._events: list[dict[str, Any]] = []

    async def visit(self, url: str, cookies: dict[str, str]) -> Visit:
        for domain in ("Page", "Network", "Runtime"):
            await self._call(f"{domain}.enable")
        await self._call("Network.clearBrowserCookies")
        for name, value in cookies.items():
            await self._call("Network.setCookie", name=name, value=value, url=url)
        await self._call("Page.navigate", url=url)
        answered = 0
        async with asyncio.timeout(LOAD_SECONDS):
            while not self._named("Page.loadEventFired"):
                if len(self._named("Page.javascriptDialogOpening")) > answered:
                    answered += 1  # an open alert holds the load until it is answered
                    await self._call("Page.handleJavaScriptDialog", accept=True)
                else:
                    await self._receive()
        page = await self._call("Runtime.evaluate", expression=READ_PAGE, returnByValue=True)
        shown = page["result"]["value"]
        return Visit(
            status=self._document_status(),
            title=shown["title"],
            text=shown["text"],
            headings=shown["headings"],
            elements=shown["elements"],
            dialogs=[e["params"]["message"] for e in self._named("Page.javascriptDialogOpening")],
        )

    def _document_status(self) -> int:
        documents = [
            event["params"]["response"]["status"]
            for event in self._named("Network.responseReceived")
            if event["params"].get("type") == "Document"
        ]
        return int(documents[-1]) if documents else 0

    async def _call(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self._ids)
        await self._ws.send_json({"id": number, "method": method, "params": params})
        while True:
            message = await self._receive()
            if message.get("id") == number:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    async def _receive(self) -> dict[str, Any]:
        message: dict[str, Any] = await self._ws.receive_json()
        if "method" in message:
            self._events.append(message)
        return message

    def _named(self, method: str) -> list[dict[str, Any]]:
        return [event for event in self._events if event["method"] == method]

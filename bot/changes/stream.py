"""One open change stream: the channel's item changes written as server-sent events.

Each wake-up (`ChangeFeed`) and each keep-alive, the stream reads the channel's list versions;
when one moved, it reads the channel's changes of the last `LATE_COMMIT_S` seconds and sends
those it has not sent. A change's id carries the second it was made in, before its transaction
commits, so the window reaches back that far; the ids sent are remembered, a bounded number.
"""

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager

import orjson
from aiohttp import web

from bot.changes import reads
from bot.changes.feed import ChangeFeed
from bot.db.uow import UnitOfWork
from bot.errors import BadRequest
from bot.lru import LeastRecentlyUsed
from bot.schemas import ItemKind
from bot.timestamps import format_timestamp

# How long a writing transaction may take from its first stamp to its commit: a change that
# commits later than this after it was stamped is missed (the next keep-alive's versions still
# say the list moved, and the stream sends `list`).
LATE_COMMIT_S = 60
# Changes read at one look, at most: more than this in one look, and the stream sends `reload`.
BATCH = 500
# Change ids remembered as sent: what one LATE_COMMIT_S window can hold before `reload`.
REMEMBERED = 2 * BATCH

Unit = Callable[[], AbstractAsyncContextManager[UnitOfWork]]


def event_id(versions: reads.Versions) -> str:
    """The stream's position: the channel's bug and task list versions, `<bug>.<task>`."""
    return ".".join(str(versions.get(kind.value, 0)) for kind in ItemKind)


def parse_event_id(text: str | None) -> reads.Versions | None:
    """A `Last-Event-ID` as `event_id` wrote it; None when absent; anything else is a 400."""
    if text is None or not text.strip():
        return None
    parts = text.strip().split(".")
    if len(parts) != len(ItemKind) or not all(p.isascii() and p.isdigit() for p in parts):
        raise BadRequest(
            "Last-Event-ID: expected '<bug version>.<task version>', as the stream's ids are"
        )
    return {kind.value: int(part[:18]) for kind, part in zip(ItemKind, parts, strict=True)}


def frame(name: str, data: dict[str, object], versions: reads.Versions | None) -> bytes:
    head = f"event: {name}\n".encode()
    position = f"id: {event_id(versions)}\n".encode() if versions is not None else b""
    return head + position + b"data: " + orjson.dumps(data) + b"\n\n"


KEEP_ALIVE = b": keep-alive\n\n"


async def serve(
    feed: ChangeFeed,
    response: web.StreamResponse,
    keep_alive_s: float,
    start: Callable[[], Awaitable[None]],
    look: Callable[[], Awaitable[None]],
) -> None:
    """A stream's life: subscribed before it starts (no wake-up missed), then a look at each
    wake-up and at each keep-alive, until the app stops."""
    with feed.subscribed() as woken:
        await start()
        while not feed.closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), keep_alive_s)
            if feed.closed:
                break
            if woken.is_set():
                woken.clear()
            else:
                await response.write(KEEP_ALIVE)
            await look()


class ChangeStream:
    """The changes of one channel, written to one response until the client or the app goes."""

    def __init__(
        self,
        response: web.StreamResponse,
        *,
        unit: Unit,
        channel_id: str,
        keep_alive_s: float,
    ) -> None:
        self._response, self._unit = response, unit
        self._channel_id, self._keep_alive_s = channel_id, keep_alive_s
        self._sent: LeastRecentlyUsed[str, bool] = LeastRecentlyUsed(REMEMBERED)
        self._versions: reads.Versions = {}
        self._since_s = int(time.time())  # ids carry the writer's system time, not the clock
        # After a `reload`: the looks after it read the changes made from its second on.
        self._floor = ""

    async def run(self, feed: ChangeFeed, resume: reads.Versions | None) -> None:
        await serve(
            feed, self._response, self._keep_alive_s, lambda: self._start(resume), self._look
        )

    async def _start(self, resume: reads.Versions | None) -> None:
        async with self._unit() as uow:
            self._versions = await reads.versions(uow, self._channel_id)
            recent = await reads.changes_after(uow, self._channel_id, self._after(), BATCH)
        for change in recent:  # made before the client read its list: already shown
            self._sent.put(change.id, True)
        if resume is not None and resume != self._versions:
            await self._reload()
        else:
            await self._response.write(frame("ready", dict(self._versions), self._versions))

    async def _look(self) -> None:
        # Versions first: every change they count has committed, so the read after sees it.
        async with self._unit() as uow:
            versions = await reads.versions(uow, self._channel_id)
            if versions == self._versions:
                return
            changes = await reads.changes_after(uow, self._channel_id, self._after(), BATCH)
        before, self._versions = self._versions, versions
        if len(changes) == BATCH:  # more than one look carries: the client reads afresh
            for change in changes:
                self._sent.put(change.id, True)
            # The client reads everything afresh now: nothing made before this second is news.
            self._since_s = int(time.time())
            self._floor = reads.first_id_at(self._since_s)
            await self._reload()
            return
        fresh = [change for change in changes if self._sent.get(change.id) is None]
        frames = [("change", self._change_data(change)) for change in fresh]
        if not fresh:  # the list moved with no item change (a status renamed, a project added)
            frames = [
                ("list", {"itemKind": kind, "version": version})
                for kind, version in versions.items()
                if version != before.get(kind)
            ]
        for change in fresh:
            self._sent.put(change.id, True)
            self._since_s = max(self._since_s, reads.id_seconds(change.id))
        await self._write_all(frames)

    def _change_data(self, change: reads.ItemChange) -> dict[str, object]:
        return {
            "itemId": change.item_id,
            "itemKind": change.kind,
            "change": change.change,
            "at": format_timestamp(change.at),
            "version": self._versions.get(change.kind, 0),
        }

    async def _write_all(self, frames: list[tuple[str, dict[str, object]]]) -> None:
        # Only the last frame carries the id: a client cut off mid-batch resumes before it.
        for number, (name, data) in enumerate(frames, start=1):
            last = number == len(frames)
            await self._response.write(frame(name, data, self._versions if last else None))

    async def _reload(self) -> None:
        await self._response.write(frame("reload", dict(self._versions), self._versions))

    def _after(self) -> str:
        return max(reads.first_id_at(self._since_s - LATE_COMMIT_S), self._floor)

"""The personal tab's change stream: which of the caller's lists moved, in any channel they
may read.

The personal views span channels, so the stream follows the list versions of every channel the
caller may read (one read of their counters per look, `reads.readable_versions`) and sends
`list` for each kind whose lists moved, or whose channels came or went (a team joined or left):
the tab then reads its list again. It tells no item ids: an item may leave the caller's list
(unassigned) with no trace of the caller left on it. Each event's id is, per kind, the sum of
those versions (`<bug>.<task>`, as the channel's stream writes it): a client that resumes at
another sum gets `reload`.
"""

from aiohttp import web

from bot.changes import reads
from bot.changes.feed import ChangeFeed
from bot.changes.stream import Unit, frame, serve
from bot.schemas import ItemKind


def summed(versions: reads.ReadableVersions) -> reads.Versions:
    """Per kind, the sum of its lists' versions: what the stream's ids carry."""
    sums = {kind.value: 0 for kind in ItemKind}
    for (_channel, kind), version in versions.items():
        sums[kind] = sums.get(kind, 0) + version
    return sums


def moved_kinds(before: reads.ReadableVersions, after: reads.ReadableVersions) -> list[str]:
    """The kinds with a list that moved, came or went, in `ItemKind`'s order."""
    moved = {key[1] for key in before.keys() ^ after.keys()}
    moved |= {key[1] for key in before.keys() & after.keys() if before[key] != after[key]}
    return [kind.value for kind in ItemKind if kind.value in moved]


class MyChangeStream:
    """One personal tab's stream, written to one response until the client or the app goes."""

    def __init__(
        self, response: web.StreamResponse, *, unit: Unit, user_id: str, keep_alive_s: float
    ) -> None:
        self._response, self._unit = response, unit
        self._user_id, self._keep_alive_s = user_id, keep_alive_s
        self._versions: reads.ReadableVersions = {}

    async def run(self, feed: ChangeFeed, resume: reads.Versions | None) -> None:
        await serve(
            feed, self._response, self._keep_alive_s, lambda: self._start(resume), self._look
        )

    async def _read(self) -> reads.ReadableVersions:
        async with self._unit() as uow:
            return await reads.readable_versions(uow, self._user_id)

    async def _start(self, resume: reads.Versions | None) -> None:
        self._versions = await self._read()
        sums = summed(self._versions)
        name = "reload" if resume is not None and resume != sums else "ready"
        await self._response.write(frame(name, dict(sums), sums))

    async def _look(self) -> None:
        versions = await self._read()
        kinds = moved_kinds(self._versions, versions)
        if not kinds:
            return
        self._versions = versions
        sums = summed(versions)
        for number, kind in enumerate(kinds, start=1):
            last = number == len(kinds)  # only the last carries the id, as the channel's do
            data = {"itemKind": kind, "version": sums[kind]}
            await self._response.write(frame("list", data, sums if last else None))

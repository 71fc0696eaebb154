"""The first import of a linked project, for each source (`python -m bench sync`): a project
linked through the app's API (`POST /api/projects`, sync enabled) and its import run by the
app's own worker to its end, beside a bare aiohttp client reading the same pages from the same
local source, one at a time as the connector asks for them (`SyncSource.bare_import`), round by
round (`harness.in_rounds`).

The stand-in runs in its own process, seeded with plain items and, in a second one, with items
whose descriptions are rich text (HTML, or Atlassian Document Format) turned into the body's
text on the way in (Planner's notes are plain text: one stand-in, each task with a
description, whose details the import reads). Each round links a project in a fresh channel, so
every round imports every item. After each of the app's imports, the raw driver writes the rows
it wrote again (`sync_raw_writes`): the bare client's time and that one's together say how near
the goal can be at all.
"""

import asyncio
import itertools
import statistics
import time
from contextlib import ExitStack
from typing import Any

import aiohttp

from bench.harness import ROUNDS, Load, Series, Server, in_rounds, ratio
from bench.sync_raw_writes import write_again
from bench.sync_rig import (
    FULL,
    App,
    Standin,
    SyncSource,
    app,
    channel_name,
    control,
    link,
    standin,
    until_synced,
)

ITEMS = 10_000 if FULL else 2_000


def title(source: SyncSource) -> str:
    return (
        f"Import of {ITEMS:,} {source.name} {source.items}, linked through the API ({ROUNDS} "
        f"rounds): items/s beside a bare aiohttp client reading the same {source.pages}"
    )


def variants(source: SyncSource) -> list[str]:
    return ["plain", source.rich] if source.rich else ["plain"]


def measure(source: SyncSource, kind: str) -> dict[str, Any]:
    with ExitStack() as stack:
        stand_ins = {variant: stack.enter_context(standin(source)) for variant in variants(source)}
        asyncio.run(_seed(stand_ins))
        channels = itertools.count()
        cpu: dict[str, list[float]] = {variant: [] for variant in stand_ins}
        sent: dict[str, list[float]] = {variant: [] for variant in stand_ins}
        raw: dict[str, list[float]] = {variant: [] for variant in stand_ins}
        # The app's settings name one stand-in: a source that needs them has one variant.
        settings = source.app_settings(stand_ins["plain"])
        with app(kind, channels=ROUNDS * len(stand_ins), **settings) as running:
            runs = {}
            for variant, there in stand_ins.items():
                runs[f"app {variant}"] = _app_run(
                    running, source, there, channels, cpu[variant], sent[variant], raw[variant]
                )
                runs[f"bare {variant}"] = _bare_run(source, there)
            return {"series": in_rounds(runs), "cpu": cpu, "sent": sent, "raw": raw}


def report(source: SyncSource, kind: str, measured: dict[str, Any]) -> list[str]:
    lines = []
    for variant in variants(source):
        series = measured["series"]
        app_side, bare = series[f"app {variant}"], series[f"bare {variant}"]
        cpu = statistics.median(measured["cpu"][variant]) * 1000
        sent = statistics.median(measured["sent"][variant])
        lines.append(
            f"{kind:10} {variant:5} app {app_side.requests_per_second:7,.0f} items/s  bare client "
            f"{bare.requests_per_second:7,.0f} items/s  ratio {ratio(app_side, bare)} "
            f"(goal ≥ 80 %; rounds {_rounds(app_side, bare)}); app CPU {cpu:.1f} ms an item, "
            f"app requests {sent:.2f} an item"
        )
        lines.append(_ceiling(bare, statistics.median(measured["raw"][variant])))
    return lines


def _ceiling(bare: Series, raw_seconds: float) -> str:
    """The raw driver's writes beside the bare client's reads: 80 % of the bare client's rate
    leaves the app a quarter of the bare client's time for everything else it does."""
    read = ITEMS / bare.requests_per_second
    both = read + raw_seconds
    verdict = "within" if both <= 1.25 * read else "beyond"
    return (
        f"{'':16} raw driver writing the same rows {ITEMS / raw_seconds:7,.0f} items/s "
        f"({raw_seconds * 1000:,.0f} ms); bare reads + raw writes {both * 1000:,.0f} ms "
        f"against 1.25 × bare {1.25 * read * 1000:,.0f} ms: 80 % {verdict} reach"
    )


def _rounds(app_side: Series, bare: Series) -> str:
    return ", ".join(
        f"{a.requests_per_second:.0f}/{b.requests_per_second:.0f}"
        for a, b in zip(app_side.loads, bare.loads, strict=True)
    )


async def _seed(stand_ins: dict[str, Standin]) -> None:
    async with aiohttp.ClientSession() as http:
        for variant, there in stand_ins.items():
            await control(http, there, "POST", "/seed", count=ITEMS, rich=variant != "plain")


def _app_run(
    running: App,
    source: SyncSource,
    there: Standin,
    channels: "itertools.count[int]",
    cpu: list[float],
    sent: list[float],
    raw: list[float],
) -> Any:
    """One import; the app process's CPU time per item (from /proc) goes to `cpu`, the
    requests it sent the stand-in per item (the link's own among them) to `sent`, the raw
    driver's seconds writing its rows again (not timed with the import) to `raw`."""
    process = Server(running.base, running.pid)

    def run() -> Load:
        before = process.cpu_seconds()
        load, requests, project_id = asyncio.run(
            _app_import(running, source, there, channel_name(next(channels)))
        )
        cpu.append((process.cpu_seconds() - before) / ITEMS)
        sent.append(requests / ITEMS)
        raw.append(asyncio.run(write_again(running.url, project_id, source.page)))
        return load

    return run


async def _app_import(
    running: App, source: SyncSource, there: Standin, channel: str
) -> tuple[Load, int, str]:
    """The import's rate, the requests the stand-in served meanwhile, the project's id."""
    async with aiohttp.ClientSession() as http:
        await control(http, there, "GET", "/served")  # forgets what came before
        started = time.perf_counter()
        project_id, _ = await link(http, running, channel, source, there)
        shown = await until_synced(http, running, channel, project_id, poll=0.1)
        elapsed = time.perf_counter() - started
        served = await control(http, there, "GET", "/served")
    assert shown["counts"]["imported"] == ITEMS, shown
    return Load(ITEMS / elapsed, elapsed * 1000, elapsed * 1000), len(served), project_id


def _bare_run(source: SyncSource, there: Standin) -> Any:
    def run() -> Load:
        return asyncio.run(_bare_import(source, there))

    return run


async def _bare_import(source: SyncSource, there: Standin) -> Load:
    started = time.perf_counter()
    read = await source.bare_import(there)
    elapsed = time.perf_counter() - started
    assert read == ITEMS, read
    return Load(ITEMS / elapsed, elapsed * 1000, elapsed * 1000)

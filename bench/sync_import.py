"""The first import of a linked Azure DevOps project (`python -m bench sync`): a project linked
through the app's API (`POST /api/projects`, sync enabled) and its import run by the app's own
worker to its end, beside a bare aiohttp client reading the same pages (the project, one WIQL
answer, then `workitemsbatch` calls of 200 ids, one at a time as the connector sends them) from
the same local Azure DevOps, round by round (`harness.in_rounds`).

The stand-in runs in its own process, seeded with plain work items and, in a second one, with
work items whose descriptions are HTML (turned into the body's text on the way in). Each round
links a project in a fresh channel, so every round imports every item.
"""

import asyncio
import itertools
import statistics
import time
from typing import Any

import aiohttp
import orjson
from yarl import URL

from bench.ado_standin import TOKEN
from bench.harness import ROUNDS, Load, Series, Server, in_rounds, ratio
from bench.sync_rig import (
    FULL,
    App,
    Standin,
    app,
    channel_name,
    control,
    link,
    standin,
    until_synced,
)
from bot.sync.azure_devops.wiql import changed_query

ITEMS = 10_000 if FULL else 2_000
BATCH = 200  # ids a workitemsbatch call reads (the service's limit, the connector's page)
VARIANTS = ("plain", "html")


def title() -> str:
    return (
        f"Import of {ITEMS:,} Azure DevOps work items, linked through the API ({ROUNDS} rounds):"
        " items/s beside a bare aiohttp client reading the same WIQL and batch pages"
    )


def measure(kind: str) -> dict[str, Any]:
    with standin() as plain, standin() as html:
        stand_ins = {"plain": plain, "html": html}
        asyncio.run(_seed(stand_ins))
        channels = itertools.count()
        cpu: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
        with app(kind, channels=ROUNDS * len(VARIANTS)) as running:
            runs = {}
            for variant, ado in stand_ins.items():
                runs[f"app {variant}"] = _app_run(running, ado, channels, cpu[variant])
                runs[f"bare {variant}"] = _bare_run(ado)
            return {"series": in_rounds(runs), "cpu": cpu}


def report(kind: str, measured: dict[str, Any]) -> list[str]:
    lines = []
    for variant in VARIANTS:
        series = measured["series"]
        app_side, bare = series[f"app {variant}"], series[f"bare {variant}"]
        cpu = statistics.median(measured["cpu"][variant]) * 1000
        lines.append(
            f"{kind:10} {variant:5} app {app_side.requests_per_second:7,.0f} items/s  bare client "
            f"{bare.requests_per_second:7,.0f} items/s  ratio {ratio(app_side, bare)} "
            f"(goal ≥ 80 %; rounds {_rounds(app_side, bare)}); app CPU {cpu:.1f} ms an item"
        )
    return lines


def _rounds(app_side: Series, bare: Series) -> str:
    return ", ".join(
        f"{a.requests_per_second:.0f}/{b.requests_per_second:.0f}"
        for a, b in zip(app_side.loads, bare.loads, strict=True)
    )


async def _seed(stand_ins: dict[str, Standin]) -> None:
    async with aiohttp.ClientSession() as http:
        for variant, ado in stand_ins.items():
            await control(http, ado, "POST", "/seed", count=ITEMS, html=variant == "html")


def _app_run(running: App, ado: Standin, channels: "itertools.count[int]", cpu: list[float]) -> Any:
    """One import; the app process's CPU time per item (from /proc) goes to `cpu`."""
    process = Server(running.base, running.pid)

    def run() -> Load:
        before = process.cpu_seconds()
        load = asyncio.run(_app_import(running, ado, channel_name(next(channels))))
        cpu.append((process.cpu_seconds() - before) / ITEMS)
        return load

    return run


async def _app_import(running: App, ado: Standin, channel: str) -> Load:
    async with aiohttp.ClientSession() as http:
        started = time.perf_counter()
        project_id = await link(http, running, channel, ado)
        shown = await until_synced(http, running, channel, project_id, poll=0.1)
        elapsed = time.perf_counter() - started
    assert shown["counts"]["imported"] == ITEMS, shown
    return Load(ITEMS / elapsed, elapsed * 1000, elapsed * 1000)


def _bare_run(ado: Standin) -> Any:
    def run() -> Load:
        return asyncio.run(_bare_import(ado))

    return run


async def _bare_import(ado: Standin) -> Load:
    """The project, one WIQL answer, then its ids 200 at a time, as the connector asks."""
    org = URL(ado.org)
    headers = {"Accept": "application/json", "Authorization": aiohttp.encode_basic_auth("", TOKEN)}
    posted = {**headers, "Content-Type": "application/json"}
    version = {"api-version": "7.1"}
    query = changed_query(ado.project, ["Bug", "Task"])
    read = 0
    async with aiohttp.ClientSession() as http:
        started = time.perf_counter()
        async with http.get(
            org / "_apis" / "projects" / ado.project % version, headers=headers
        ) as r:
            project = orjson.loads(await r.read())
        team = project["defaultTeam"]["id"]
        wiql = org / ado.project / team / "_apis" / "wit" / "wiql"
        params = {"timePrecision": "true", "$top": "20000", **version}
        body = orjson.dumps({"query": query})
        async with http.post(wiql % params, data=body, headers=posted) as r:
            ids = [ref["id"] for ref in orjson.loads(await r.read())["workItems"]]
        batch = org / ado.project / "_apis" / "wit" / "workitemsbatch" % version
        for start in range(0, len(ids), BATCH):
            page = orjson.dumps({"ids": ids[start : start + BATCH], "errorPolicy": "omit"})
            async with http.post(batch, data=page, headers=posted) as r:
                read += len(orjson.loads(await r.read())["value"])
        elapsed = time.perf_counter() - started
    assert read == ITEMS, read
    return Load(ITEMS / elapsed, elapsed * 1000, elapsed * 1000)

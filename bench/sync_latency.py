"""Sync latency on an idle app, for each source (`python -m bench sync`), one change at a time,
the app in its own process with its worker as it runs in production:

- here → there: a PATCH through the API until the stand-in holds the new revision (the
  stand-in notes when each revision was made, on the monotonic clock every process shares);
- there → here by hook: a change made at the stand-in (Azure DevOps' service hook, subscribed
  by the link, or Jira's signed webhook, registered as an administrator does with the link's
  hook secret, calls the app) until the item read through the API shows it (read every 10 ms);
  Planner has no hooks: its changes here go to the polled project's plan, and there is no hook
  case;
- there → here by polling: another project, with no hooks (Azure DevOps refuses its token
  service hooks; no Jira webhook is registered), polled every
  `intervalSeconds` (the least allowed, 15 s); changes made there at spread times until the
  channel's list shows them (read every 50 ms).

Beside them, for scale, a read of the item's details through the API in the same run.
"""

import asyncio
import random
import statistics
import time
from contextlib import ExitStack
from typing import Any

import aiohttp

from bench.sync_rig import (
    FULL,
    App,
    Standin,
    SyncSource,
    app,
    channel_name,
    control,
    link,
    percentile,
    standin,
    until_synced,
)
from bot.sync_records.schemas import MIN_INTERVAL_SECONDS

SAMPLES = 40 if FULL else 20
POLLED_INTERVALS = 2 if FULL else 1  # how long changes are made for the polling case
PAUSE_S = 0.1  # between changes: the app is idle when each one starts


def title(source: SyncSource) -> str:
    return (
        f"{source.name} sync latency, idle ({SAMPLES} changes each way one at a time; by "
        f"polling every {MIN_INTERVAL_SECONDS} s for {POLLED_INTERVALS} intervals)"
    )


def measure(source: SyncSource, kind: str) -> dict[str, list[float]]:
    with ExitStack() as stack:
        polled = stack.enter_context(standin(source))
        hooked = stack.enter_context(standin(source)) if source.hooked else None
        running = stack.enter_context(app(kind, channels=2, **source.app_settings(polled)))
        return asyncio.run(_measure(source, running, hooked, polled))


def report(source: SyncSource, kind: str, figures: dict[str, list[float]]) -> list[str]:
    def shown(name: str, unit: str = "ms") -> str:
        values = figures[name]
        scale = 1 if unit == "ms" else 1000
        return (
            f"p50 {statistics.median(values) / scale:.{0 if unit == 'ms' else 1}f} {unit}, "
            f"p95 {percentile(values, 0.95) / scale:.{0 if unit == 'ms' else 1}f} {unit}, "
            f"max {max(values) / scale:.{0 if unit == 'ms' else 1}f} {unit}"
        )

    hook = "hook" in figures  # none for a source without hooks (Planner)
    return [
        f"{kind:10} here → there      {shown('out')} (goal p95 ≤ 1 s)",
        *([f"{kind:10} there → here hook {shown('hook')} (goal p95 ≤ 1 s)"] if hook else []),
        f"{kind:10} there → here poll {shown('poll', 's')} (goal ≤ {MIN_INTERVAL_SECONDS + 1} s)"
        f", {len(figures['poll'])} changes",
        f"{kind:10} GET an item's details {shown('bare')}",
    ]


async def _measure(
    source: SyncSource, running: App, hooked: Standin | None, polled: Standin
) -> dict[str, list[float]]:
    figures = {}
    async with aiohttp.ClientSession() as http:
        await control(http, polled, "POST", "/seed", count=SAMPLES)
        await control(http, polled, "POST", "/hooks", on=False)
        here, there = channel_name(0), channel_name(1)
        if hooked is not None:
            await control(http, hooked, "POST", "/seed", count=SAMPLES)
            hooked_id, secret = await link(http, running, here, source, hooked)
            # Where an administrator registers a webhook by hand (Jira); Azure DevOps' link has
            # subscribed already.
            url = f"{running.base}/api/sync/hooks/{hooked_id}"
            await control(http, hooked, "POST", "/hooks", on=True, url=url, secret=secret)
            await until_synced(http, running, here, hooked_id)
        polled_id, _ = await link(
            http, running, there, source, polled, intervalSeconds=MIN_INTERVAL_SECONDS
        )
        await until_synced(http, running, there, polled_id)
        if hooked is not None:
            items = await _items(http, running, here)
            figures["out"] = await _here_to_there(http, running, here, hooked, items)
            figures["hook"], figures["bare"] = await _there_by_hook(
                http, running, here, source, hooked, items
            )
        else:
            items = await _items(http, running, there)
            figures["out"] = await _here_to_there(http, running, there, polled, items)
            figures["bare"] = await _reads(http, running, there, items)
        figures["poll"] = await _there_by_polling(http, running, there, source, polled)
    return figures


async def _items(http: aiohttp.ClientSession, running: App, channel: str) -> list[dict[str, Any]]:
    """The channel's items: id, kind, source id."""
    found = []
    for kind in ("bugs", "tasks"):
        async with http.get(
            f"{running.base}/odata/{kind}", headers=running.in_channel(channel)
        ) as response:
            assert response.status == 200, await response.text()
            found += [
                {"id": item["_id"], "kind": kind, "source_id": str(item["sourceId"])}
                for item in (await response.json())["value"]
            ]
    return found


async def _here_to_there(
    http: aiohttp.ClientSession, running: App, channel: str, there: Standin, items: list[Any]
) -> list[float]:
    revs = await control(http, there, "GET", "/revs")
    latencies = []
    for n, item in enumerate(items[:SAMPLES]):
        url = f"{running.base}/odata/{item['kind']}({item['id']})"
        started = time.monotonic()
        async with http.patch(
            url, json={"name": f"Changed here {n}"}, headers=running.in_channel(channel)
        ) as response:
            assert response.status == 204, await response.text()
        revs[item["source_id"]] += 1
        arrived = await control(
            http, there, "GET", f"/arrived?id={item['source_id']}&rev={revs[item['source_id']]}"
        )
        latencies.append((arrived["at"] - started) * 1000)
        await asyncio.sleep(PAUSE_S)
    return latencies


async def _reads(
    http: aiohttp.ClientSession, running: App, channel: str, items: list[Any]
) -> list[float]:
    """Each item's details read through the API once: the scale beside the latencies."""
    took = []
    for item in items[:SAMPLES]:
        started = time.monotonic()
        async with http.get(
            f"{running.base}/api/{item['kind']}/{item['id']}/details",
            headers=running.in_channel(channel),
        ) as response:
            assert response.status == 200, await response.text()
            await response.read()
        took.append((time.monotonic() - started) * 1000)
    return took


async def _there_by_hook(
    http: aiohttp.ClientSession,
    running: App,
    channel: str,
    source: SyncSource,
    there: Standin,
    items: list[Any],
) -> tuple[list[float], list[float]]:
    latencies, bare = [], []
    headers = running.in_channel(channel)
    for n, item in enumerate(items[:SAMPLES]):
        url = f"{running.base}/api/{item['kind']}/{item['id']}/details"
        name = f"Changed there {n}"
        changed = await control(
            http, there, "POST", "/change", id=item["source_id"], fields=source.title(name)
        )
        while True:
            started = time.monotonic()
            async with http.get(url, headers=headers) as response:
                shown = await response.json()
            bare.append((time.monotonic() - started) * 1000)
            if shown["name"] == name:
                latencies.append((time.monotonic() - changed["at"]) * 1000)
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(PAUSE_S)
    return latencies, bare


async def _there_by_polling(
    http: aiohttp.ClientSession, running: App, channel: str, source: SyncSource, there: Standin
) -> list[float]:
    """Changes made there at random moments over some polling intervals, each until the
    channel's list shows it."""
    source_ids = list(await control(http, there, "GET", "/revs"))
    span = POLLED_INTERVALS * MIN_INTERVAL_SECONDS
    moments = sorted(random.uniform(0, span) for _ in source_ids)
    waiting: dict[str, float] = {}  # name → when it was changed there
    latencies: list[float] = []
    started = time.monotonic()

    async def change_there() -> None:
        for n, (source_id, moment) in enumerate(zip(source_ids, moments, strict=True)):
            await asyncio.sleep(max(0.0, started + moment - time.monotonic()))
            name = f"Polled change {n}"
            changed = await control(
                http, there, "POST", "/change", id=source_id, fields=source.title(name)
            )
            waiting[name] = changed["at"]

    changing = asyncio.create_task(change_there())
    deadline = started + span + 2 * MIN_INTERVAL_SECONDS + 10
    while (waiting or not changing.done()) and time.monotonic() < deadline:
        for kind in ("bugs", "tasks"):
            async with http.get(
                f"{running.base}/odata/{kind}", headers=running.in_channel(channel)
            ) as response:
                names = {item["name"] for item in (await response.json())["value"]}
            for name in names & set(waiting):
                latencies.append((time.monotonic() - waiting.pop(name)) * 1000)
        await asyncio.sleep(0.05)
    await changing
    if waiting:
        raise RuntimeError(f"{len(waiting)} changes there never arrived by polling")
    return latencies

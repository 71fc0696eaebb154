"""Planner as the sync benchmarks see it (`sync_rig.SyncSource`): its stand-in (with its Entra
token endpoint, which the app reaches through `ENTRA_AUTHORITY_URL`), how a plan links, the
bare client's import (a token, the plan's task pages followed by `@odata.nextLink`, then the
tasks' details in JSON batches of `BATCH`, `AT_ONCE` batches in flight, a hundred tasks at a
time, as the connector reads a first import: every ETag is new) and a push replayed (the details
read before each write, the task's PATCH with `If-Match` the twin's ETag now; a poll's batch
asks for the twins' details). Planner has no hooks: only polling brings changes in."""

import asyncio
from typing import Any

import aiohttp
import orjson

from bench.planner_standin import BARE_TOKEN, BUCKETS, CLIENT, SECRET, TENANT, etag
from bench.sync_rig import Standin
from bot.sync.planner.client import SCOPE
from bot.sync.planner.details import BATCH
from bot.sync.planner.source import AT_ONCE, PAGE

HEADERS = {"Accept": "application/json", "Authorization": f"Bearer {BARE_TOKEN}"}
TASKS = "/planner/tasks/"


class Planner:
    name = "Planner"
    items = "tasks"
    rich = None  # Planner's notes are plain text: one variant, every task with a description
    hooked = False
    standin = "bench.planner_standin"
    page = PAGE  # items one page of the import brings (one transaction of its writes)
    pages = "task pages and details"
    write = "PATCH"
    answered = frozenset({200})

    def app_settings(self, there: Standin) -> dict[str, str]:
        return {"ENTRA_AUTHORITY_URL": there.root}

    def link_body(self, there: Standin) -> dict[str, Any]:
        return {
            "source": "Microsoft.Planner",
            "sourceId": there.project,
            "hostname": there.hostname,
            "tenantId": TENANT,
            "clientId": CLIENT,
            "clientSecret": SECRET,
        }

    def push_scope(self, there: Standin) -> tuple[str | None, str | None]:
        return "App", BUCKETS["App"]

    def title(self, name: str) -> dict[str, Any]:
        return {"title": name}

    async def bare_import(self, there: Standin) -> int:
        form = {
            "grant_type": "client_credentials",
            "client_id": CLIENT,
            "client_secret": SECRET,
            "scope": SCOPE,
        }
        async with aiohttp.ClientSession() as http:
            token_url = f"{there.root}/{TENANT}/oauth2/v2.0/token"
            async with http.post(token_url, data=form) as r:
                token = orjson.loads(await r.read())["access_token"]
            headers = {"Accept": "application/json", "Authorization": f"Bearer {token}"}
            tasks: list[str] = []
            url: str | None = f"{there.hostname}/planner/plans/{there.project}/tasks"
            while url:
                async with http.get(url, headers=headers) as r:
                    page = orjson.loads(await r.read())
                tasks += [task["id"] for task in page["value"]]
                url = page.get("@odata.nextLink")
            gate = asyncio.Semaphore(AT_ONCE)
            batch_url = f"{there.hostname}/$batch"

            async def details(task_ids: list[str]) -> None:
                asked = [
                    {"id": str(n), "method": "GET", "url": f"{TASKS}{task_id}/details"}
                    for n, task_id in enumerate(task_ids, 1)
                ]
                async with (
                    gate,
                    http.post(batch_url, json={"requests": asked}, headers=headers) as r,
                ):
                    answered = orjson.loads(await r.read())["responses"]
                    assert all(one["status"] == 200 for one in answered)

            for start in range(0, len(tasks), PAGE):
                page_ids = tasks[start : start + PAGE]
                chunks = [page_ids[n : n + BATCH] for n in range(0, len(page_ids), BATCH)]
                await asyncio.gather(*(details(chunk) for chunk in chunks))
        return len(tasks)

    def replayed(
        self, request: dict[str, Any], twin: dict[str, str], revs: dict[str, int]
    ) -> tuple[str, bytes | None, dict[str, str]]:
        path = request["path"]
        if path.endswith("/$batch"):  # a poll's details: the twins' asked for
            asked = [
                {**one, "url": _twinned(one["url"], twin)} for one in request["body"]["requests"]
            ]
            json_headers = {**HEADERS, "Content-Type": "application/json"}
            return path, orjson.dumps({"requests": asked}), json_headers
        if TASKS not in path:
            return path, None, HEADERS
        path = _twinned(path, twin)
        task_id = path.partition(TASKS)[2].partition("/")[0]
        if request["method"] != "PATCH":
            return path, None, HEADERS
        headers = {
            **HEADERS,
            "Content-Type": "application/json",
            "If-Match": etag(task_id, revs[task_id]),
            "Prefer": "return=representation",
        }
        revs[task_id] += 1
        return path, orjson.dumps(request["body"]), headers


def _twinned(path: str, twin: dict[str, str]) -> str:
    """The path with its task's id replaced by its twin's."""
    before, _, rest = path.partition(TASKS)
    task_id, _, tail = rest.partition("/")
    return before + TASKS + twin[task_id] + (f"/{tail}" if tail else "")


SOURCE = Planner()

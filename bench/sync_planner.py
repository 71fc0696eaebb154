"""Planner as the sync benchmarks see it (`sync_rig.SyncSource`): its stand-in (with its Entra
token endpoint, which the app reaches through `ENTRA_AUTHORITY_URL`), how a plan links, the
bare client's import (a token, the plan's task pages followed by `@odata.nextLink`, then each
task's details, `AT_ONCE` in flight a hundred at a time, as the connector reads a first import:
every ETag is new) and a push replayed (the details read before each write, the task's PATCH
with `If-Match` the twin's ETag now). Planner has no hooks: only polling brings changes in."""

import asyncio
from typing import Any

import aiohttp
import orjson

from bench.planner_standin import BARE_TOKEN, BUCKETS, CLIENT, SECRET, TENANT, etag
from bench.sync_rig import Standin
from bot.sync.planner.client import SCOPE
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

            async def details(task_id: str) -> None:
                read = f"{there.hostname}{TASKS}{task_id}/details"
                async with gate, http.get(read, headers=headers) as r:
                    orjson.loads(await r.read())

            for start in range(0, len(tasks), PAGE):
                await asyncio.gather(*(details(t) for t in tasks[start : start + PAGE]))
        return len(tasks)

    def replayed(
        self, request: dict[str, Any], twin: dict[str, str], revs: dict[str, int]
    ) -> tuple[str, bytes | None, dict[str, str]]:
        path = request["path"]
        before, _, rest = path.partition(TASKS)
        if not rest:
            return path, None, HEADERS
        task_id, _, tail = rest.partition("/")
        task_id = twin[task_id]
        path = before + TASKS + task_id + (f"/{tail}" if tail else "")
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


SOURCE = Planner()

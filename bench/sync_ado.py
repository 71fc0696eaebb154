"""Azure DevOps as the sync benchmarks see it (`sync_rig.SyncSource`): its stand-in, how a
project links, the bare client's import (the project, one WIQL answer, then `workitemsbatch`
calls of 200 ids one at a time, as the connector sends them) and a push replayed (each JSON
Patch's `test` of `/rev` naming the twin's rev now)."""

from typing import Any

import aiohttp
import orjson
from yarl import URL

from bench.ado_standin import TOKEN
from bench.sync_rig import Standin
from bot.sync.azure_devops.wiql import changed_query

BATCH = 200  # ids a workitemsbatch call reads (the service's limit, the connector's page)
HEADERS = {"Accept": "application/json", "Authorization": aiohttp.encode_basic_auth("", TOKEN)}


class AzureDevOps:
    name = "Azure DevOps"
    items = "work items"
    rich = "html"
    hooked = True
    standin = "bench.ado_standin"
    page = BATCH  # items one page of the import brings (one transaction of its writes)
    pages = "WIQL and batch pages"
    write = "PATCH"
    # A patch the app sent twice (its first try met a stale rev) may meet one too.
    answered = frozenset({200, 412})

    def app_settings(self, there: Standin) -> dict[str, str]:
        return {}

    def link_body(self, there: Standin) -> dict[str, Any]:
        return {
            "source": "Microsoft.Vsts",
            "sourceId": there.project,
            "hostname": there.hostname,
            "token": TOKEN,
        }

    def push_scope(self, there: Standin) -> tuple[str | None, str | None]:
        return "App", f"{there.project}\\App"

    def title(self, name: str) -> dict[str, Any]:
        return {"System.Title": name}

    async def bare_import(self, there: Standin) -> int:
        org = URL(there.hostname)
        posted = {**HEADERS, "Content-Type": "application/json"}
        version = {"api-version": "7.1"}
        query = changed_query(there.project, ["Bug", "Task"])
        read = 0
        async with aiohttp.ClientSession() as http:
            async with http.get(
                org / "_apis" / "projects" / there.project % version, headers=HEADERS
            ) as r:
                project = orjson.loads(await r.read())
            team = project["defaultTeam"]["id"]
            wiql = org / there.project / team / "_apis" / "wit" / "wiql"
            params = {"timePrecision": "true", "$top": "20000", **version}
            body = orjson.dumps({"query": query})
            async with http.post(wiql % params, data=body, headers=posted) as r:
                ids = [ref["id"] for ref in orjson.loads(await r.read())["workItems"]]
            batch = org / there.project / "_apis" / "wit" / "workitemsbatch" % version
            for start in range(0, len(ids), BATCH):
                page = orjson.dumps({"ids": ids[start : start + BATCH], "errorPolicy": "omit"})
                async with http.post(batch, data=page, headers=posted) as r:
                    read += len(orjson.loads(await r.read())["value"])
        return read

    def replayed(
        self, request: dict[str, Any], twin: dict[str, str], revs: dict[str, int]
    ) -> tuple[str, bytes | None, dict[str, str]]:
        body, path = request["body"], request["path"]
        if request["method"] != "PATCH":
            if body is None:
                return path, None, HEADERS
            return path, orjson.dumps(body), {**HEADERS, "Content-Type": "application/json"}
        folder, _, item_id = path.rpartition("/")
        item_id = twin[item_id]
        guard = {"op": "test", "path": "/rev", "value": revs[item_id]}
        revs[item_id] += 1
        patch = orjson.dumps([guard if op["path"] == "/rev" else op for op in body])
        return (
            f"{folder}/{item_id}",
            patch,
            {**HEADERS, "Content-Type": "application/json-patch+json"},
        )


SOURCE = AzureDevOps()

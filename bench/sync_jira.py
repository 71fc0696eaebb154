"""Jira as the sync benchmarks see it (`sync_rig.SyncSource`): its stand-in, how a project
links, the bare client's import (`POST /rest/api/3/search/jql` pages of 100 issues followed by
`nextPageToken`, one at a time, as the connector sends them) and a push replayed (the read
before each write, the write, the transition if any, the read after, aimed at the twin)."""

from typing import Any

import aiohttp
import orjson

from bench.jira_standin import EMAIL, TOKEN
from bench.sync_rig import Standin
from bot.sync.jira import fields
from bot.sync.jira.source import PAGE

HEADERS = {"Accept": "application/json", "Authorization": aiohttp.encode_basic_auth(EMAIL, TOKEN)}
POSTED = {**HEADERS, "Content-Type": "application/json"}
ISSUE = "/rest/api/3/issue/"


class Jira:
    name = "Jira"
    items = "issues"
    rich = "adf"
    hooked = True
    standin = "bench.jira_standin"
    page = PAGE  # items one page of the import brings (one transaction of its writes)
    pages = "search/jql pages"
    write = "PUT"
    answered = frozenset({200, 204})

    def app_settings(self, there: Standin) -> dict[str, str]:
        return {}

    def link_body(self, there: Standin) -> dict[str, Any]:
        return {
            "source": "Jira",
            "sourceId": there.project,
            "hostname": there.hostname,
            "email": EMAIL,
            "token": TOKEN,
        }

    def push_scope(self, there: Standin) -> tuple[str | None, str | None]:
        """None: Jira has no area. The twins are made after the project's import, with no
        webhook and no poll before the bench ends, so the app never reads them."""
        return None, None

    def title(self, name: str) -> dict[str, Any]:
        return {"summary": name}

    async def bare_import(self, there: Standin) -> int:
        # The JQL `JiraSource` writes for a first import of the default item types.
        jql = (
            f'project = "{there.project}" AND issuetype in ("Bug", "Task") '
            "ORDER BY updated ASC, key ASC"
        )
        search = f"{there.root}/rest/api/3/search/jql"
        read, token = 0, None
        async with aiohttp.ClientSession() as http:
            while True:
                body: dict[str, Any] = {"jql": jql, "maxResults": PAGE, "fields": fields.READ}
                if token:
                    body["nextPageToken"] = token
                async with http.post(search, data=orjson.dumps(body), headers=POSTED) as r:
                    answer = orjson.loads(await r.read())
                read += len(answer["issues"])
                token = answer.get("nextPageToken")
                if answer.get("isLast", True) or not token:
                    return read

    def replayed(
        self, request: dict[str, Any], twin: dict[str, str], revs: dict[str, int]
    ) -> tuple[str, bytes | None, dict[str, str]]:
        path = request["path"]
        if path.startswith(ISSUE):
            key, _, rest = path.removeprefix(ISSUE).partition("/")
            path = ISSUE + twin[key] + (f"/{rest}" if rest else "")
        if request["body"] is None:
            return path, None, HEADERS
        return path, orjson.dumps(request["body"]), POSTED


SOURCE = Jira()

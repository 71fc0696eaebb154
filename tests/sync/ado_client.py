"""A plain aiohttp client for the local Azure DevOps, speaking as the description says: PAT
as Basic with an empty user, the api-version each route declares, JSON Patch where it is one."""

import base64
import json
from dataclasses import dataclass
from typing import Any

import aiohttp

from bot.sync.standins.azure_devops import AzureDevOpsStandin

WIQL = (
    "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = '{project}' "
    "AND [System.WorkItemType] IN ('Bug', 'Task'){extra} "
    "ORDER BY [System.ChangedDate] ASC, [System.Id] ASC"
)


def wiql(project: str = "Fabrikam", *, since: str | None = None, area: str | None = None) -> str:
    extra = ""
    if since is not None:
        extra += f" AND [System.ChangedDate] > '{since}'"
    if area is not None:
        extra += f" AND [System.AreaPath] UNDER '{area}'"
    return WIQL.format(project=project, extra=extra)


def basic(token: str, user: str = "") -> str:
    return "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


class AdoClient:
    def __init__(self, http: aiohttp.ClientSession, standin: AzureDevOpsStandin) -> None:
        self.http = http
        self.standin = standin
        self.token: str | None = standin.token

    async def call(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        content_type: str = "application/json",
        api_version: str | None = "7.1",
        **query: str,
    ) -> Answer:
        headers = {"Authorization": basic(self.token)} if self.token is not None else {}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = content_type
        if api_version is not None:
            query = {**query, "api-version": api_version}
        url = f"{self.standin.org_url}{path}"
        async with self.http.request(method, url, data=data, headers=headers, params=query) as r:
            text = await r.text()
            return Answer(r.status, dict(r.headers), json.loads(text) if text else None)

    # The connector's calls

    async def project(self, name_or_id: str) -> Answer:
        return await self.call("GET", f"/_apis/projects/{name_or_id}")

    async def query(self, text: str, **query: str) -> Answer:
        team = self.standin.team
        return await self.call(
            "POST", f"/Fabrikam/{team}/_apis/wit/wiql", body={"query": text}, **query
        )

    async def batch(self, ids: list[int], **more: Any) -> Answer:
        return await self.call(
            "POST", "/Fabrikam/_apis/wit/workitemsbatch", body={"ids": ids, **more}
        )

    async def read(self, item_id: int) -> Answer:
        return await self.call("GET", f"/Fabrikam/_apis/wit/workitems/{item_id}")

    async def create(self, item_type: str, operations: list[dict[str, Any]]) -> Answer:
        return await self.call(
            "POST",
            f"/Fabrikam/_apis/wit/workitems/${item_type}",
            body=operations,
            content_type="application/json-patch+json",
        )

    async def patch(self, item_id: int, operations: list[dict[str, Any]]) -> Answer:
        return await self.call(
            "PATCH",
            f"/Fabrikam/_apis/wit/workitems/{item_id}",
            body=operations,
            content_type="application/json-patch+json",
        )

    async def delete(self, item_id: int) -> Answer:
        return await self.call("DELETE", f"/Fabrikam/_apis/wit/workitems/{item_id}")

    async def comments(self, item_id: int, **query: str) -> Answer:
        return await self.call(
            "GET",
            f"/Fabrikam/_apis/wit/workItems/{item_id}/comments",
            api_version="7.1-preview.4",
            **query,
        )

    async def comment(self, item_id: int, text: str) -> Answer:
        return await self.call(
            "POST",
            f"/Fabrikam/_apis/wit/workItems/{item_id}/comments",
            body={"text": text},
            api_version="7.1-preview.4",
        )

    async def edit_comment(self, item_id: int, comment_id: int, text: str) -> Answer:
        return await self.call(
            "PATCH",
            f"/Fabrikam/_apis/wit/workItems/{item_id}/comments/{comment_id}",
            body={"text": text},
            api_version="7.1-preview.4",
        )

    async def delete_comment(self, item_id: int, comment_id: int) -> Answer:
        return await self.call(
            "DELETE",
            f"/Fabrikam/_apis/wit/workItems/{item_id}/comments/{comment_id}",
            api_version="7.1-preview.4",
        )

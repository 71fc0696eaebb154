"""A work item's comments in Azure DevOps (REST 7.1-preview.4): the service's list, paged by
its continuation token; a comment added, edited (`PATCH …/comments/{id}`) or deleted. A comment
made here reads there as HTML with its author's name leading, in bold."""

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from yarl import URL

from bot.sync.azure_devops import fields
from bot.sync.azure_devops.client import AzureDevOpsClient
from bot.sync.azure_devops.html_text import to_html, to_text
from bot.sync.source import SourceComment, SourceNotFound

PAGE = 200  # comments one list call asks for
API = "7.1-preview.4"


class Comments:
    def __init__(self, client: AzureDevOpsClient, project: str) -> None:
        self._client, self._project = client, project  # the project's name or id

    async def listed(self, item_id: str) -> Sequence[SourceComment]:
        """The item's comments, oldest first."""
        found: list[SourceComment] = []
        token: str | None = None
        while True:
            params = {"$top": str(PAGE), "order": "asc"}
            if token:
                params["continuationToken"] = token
            answer = await self._client.call(
                "GET",
                self._url(item_id),
                params=params,
                api_version=API,
                what=f"read the comments of work item {item_id}",
            )
            answer = answer if isinstance(answer, dict) else {}
            page = answer.get("comments") or []
            found.extend(_comment(c) for c in page if not c.get("isDeleted"))
            token = answer.get("continuationToken")
            if not token or not page:
                return found

    async def add(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        answer = await self._client.call(
            "POST",
            self._url(item_id),
            body={"text": _said(author_name, text)},
            api_version=API,
            what=f"comment on work item {item_id}",
        )
        return _comment(answer)

    async def edit(self, item_id: str, comment_id: str, text: str, *, author_name: str) -> None:
        await self._client.call(
            "PATCH",
            self._url(item_id) / comment_id,
            body={"text": _said(author_name, text)},
            api_version=API,
            what=f"edit a comment on work item {item_id}",
        )

    async def delete(self, item_id: str, comment_id: str) -> None:
        try:
            await self._client.call(
                "DELETE",
                self._url(item_id) / comment_id,
                api_version=API,
                what=f"delete a comment on work item {item_id}",
            )
        except SourceNotFound:
            return  # gone already

    def _url(self, item_id: str) -> URL:
        return self._client.url(self._project, "_apis", "wit", "workItems", item_id, "comments")


def _said(author_name: str, text: str) -> str:
    return f"<p><strong>{html.escape(author_name)}</strong>:</p>" + to_html(text)


def _comment(answer: dict[str, Any]) -> SourceComment:
    created = fields.parse_time(answer.get("createdDate"))
    return SourceComment(
        id=str(answer["id"]),
        author=fields.person(answer.get("createdBy")),
        text=to_text(answer.get("text")),
        created_at=created if created is not None else datetime.min.replace(tzinfo=UTC),
    )

"""An issue's comments in Jira (REST v3): listed by `startAt` pages, added, edited (`PUT
…/comment/{id}`) and deleted; a comment made here is ADF with its author's name leading, in
bold."""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bot.sync.jira import fields
from bot.sync.jira.adf import to_adf, to_text
from bot.sync.jira.client import JiraClient
from bot.sync.source import SourceComment, SourceNotFound

PAGE = 100


class Comments:
    def __init__(self, client: JiraClient) -> None:
        self._client = client

    async def listed(self, item_id: str) -> Sequence[SourceComment]:
        """The issue's comments, oldest first."""
        client = self._client
        found: list[SourceComment] = []
        while True:
            answer = await client.call(
                "GET",
                client.url("issue", item_id, "comment"),
                params={"startAt": str(len(found)), "maxResults": str(PAGE)},
                what=f"read the comments of {item_id}",
            )
            page = list((answer or {}).get("comments") or [])
            found += [_comment(c) for c in page]
            if not page or len(found) >= int((answer or {}).get("total") or 0):
                return found

    async def add(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        client = self._client
        answer = await client.call(
            "POST",
            client.url("issue", item_id, "comment"),
            body={"body": _said(author_name, text)},
            what=f"comment on {item_id}",
        )
        return _comment(answer)

    async def edit(self, item_id: str, comment_id: str, text: str, *, author_name: str) -> None:
        client = self._client
        await client.call(
            "PUT",
            client.url("issue", item_id, "comment", comment_id),
            body={"body": _said(author_name, text)},
            what=f"edit a comment on {item_id}",
        )

    async def delete(self, item_id: str, comment_id: str) -> None:
        client = self._client
        try:
            await client.call(
                "DELETE",
                client.url("issue", item_id, "comment", comment_id),
                what=f"delete a comment on {item_id}",
            )
        except SourceNotFound:
            return  # gone already


def _said(author_name: str, text: str) -> dict[str, Any]:
    return to_adf(f"**{author_name}**:\n\n{text}") or {}


def _comment(answer: dict[str, Any]) -> SourceComment:
    created = fields.parse_time(answer.get("created"))
    return SourceComment(
        id=str(answer["id"]),
        author=fields.person(answer.get("author")),
        text=to_text(answer.get("body")),
        created_at=created if created is not None else datetime.min.replace(tzinfo=UTC),
    )

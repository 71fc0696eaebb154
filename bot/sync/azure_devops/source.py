"""`Source` over Azure DevOps: one project of one organization, reached with a PAT.

The requests are those of the published description (REST API 7.1): the project
(`_apis/projects/{id}`), a type's states and fields (`wit/workitemtypes/{type}/…`), WIQL on
`System.ChangedDate` (`{team}/_apis/wit/wiql?timePrecision=true`, the project's default team)
with `workitemsbatch` reads of 200 ids, JSON Patch with a `test` of `/rev`, comments (listed
by the revisions' comment references, then read by id) and service-hook subscriptions.
"""

import html
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from yarl import URL

from bot.clock import Clock
from bot.fields.schemas import Category
from bot.projects.sources import SourceValue
from bot.sync.azure_devops import fields
from bot.sync.azure_devops.client import JSON_PATCH, AzureDevOpsClient, listed
from bot.sync.azure_devops.html_text import to_html, to_text
from bot.sync.azure_devops.wiql import changed_query
from bot.sync.pacer import PACER, HostPacer
from bot.sync.source import (
    Changed,
    HookRegistration,
    SourceChange,
    SourceComment,
    SourceItem,
    SourceNotFound,
    SourceProject,
    SourceUnauthorized,
)

BATCH = 200  # ids one workitemsbatch call reads at most
WIQL_LIMIT = 20_000  # ids one WIQL answer holds at most
REVISIONS_PAGE = 200
COMMENTS_API = "7.1-preview.4"
HOOK_EVENTS = ("workitem.created", "workitem.updated", "workitem.deleted")
HOOK_USER = "tracker"
TIE = timedelta(microseconds=1)  # a cursor just before its time: items sharing it are read again


class AzureDevOpsSource:
    def __init__(
        self,
        http: aiohttp.ClientSession,
        *,
        base_url: URL,
        project: str,
        token: str,
        clock: Clock,
        pacer: HostPacer = PACER,
    ) -> None:
        self._client = AzureDevOpsClient(http, base_url, token, clock=clock, pacer=pacer)
        self._project_ref = project  # the project's name or id (its `sourceId`)
        self._project: dict[str, Any] | None = None
        self._type_fields: dict[str, frozenset[str]] = {}

    # The project and its types

    async def check(self) -> SourceProject:
        project = await self._read_project()
        name = str(project.get("name") or self._project_ref)
        return SourceProject(
            id=str(project.get("id") or name), name=name, url=str(self._client.url(name))
        )

    async def _read_project(self) -> dict[str, Any]:
        if self._project is None:
            client = self._client
            answer = await client.call(
                "GET", client.url("_apis", "projects", self._project_ref), what="read the project"
            )
            self._project = answer if isinstance(answer, dict) else {}
        return self._project

    async def states(self, item_type: str) -> Sequence[SourceValue]:
        client = self._client
        answer = await client.call(
            "GET",
            client.url(self._project_ref, "_apis", "wit", "workitemtypes", item_type, "states"),
            what=f"read the states of {item_type}",
        )
        return [
            SourceValue(
                str(state["name"]),
                str(state["name"]),
                fields.CATEGORIES.get(state.get("category", "")),
            )
            for state in listed(answer)
            if state.get("name")
        ]

    async def _fields_of(self, item_type: str) -> frozenset[str]:
        """The reference names of the type's fields (read once per type)."""
        if item_type not in self._type_fields:
            client = self._client
            answer = await client.call(
                "GET",
                client.url(self._project_ref, "_apis", "wit", "workitemtypes", item_type, "fields"),
                what=f"read the fields of {item_type}",
            )
            names = frozenset(
                str(f["referenceName"]) for f in listed(answer) if f.get("referenceName")
            )
            self._type_fields[item_type] = names
        return self._type_fields[item_type]

    # Reading

    async def _query(
        self, item_types: Sequence[str], area: str | None, after: datetime | None
    ) -> tuple[list[str], datetime | None]:
        """The ids WIQL finds, in its order, and when it ran (`asOf`)."""
        project = await self._read_project()
        team = str((project.get("defaultTeam") or {}).get("id") or f"{project.get('name')} Team")
        client = self._client
        query = changed_query(
            str(project.get("name") or self._project_ref),
            item_types,
            changed_after=after,
            area=area,
        )
        answer = await client.call(
            "POST",
            client.url(self._project_ref, team, "_apis", "wit", "wiql"),
            params={"timePrecision": "true"},
            body={"query": query},
            what="query the work items",
        )
        answer = answer if isinstance(answer, dict) else {}
        ids = [str(ref["id"]) for ref in answer.get("workItems") or [] if "id" in ref]
        return ids, fields.parse_time(answer.get("asOf"))

    async def changed_since(
        self, cursor: str | None, *, item_types: Sequence[str], query: str | None
    ) -> AsyncIterator[Changed]:
        """Pages of up to 200 items, oldest change first. A page's cursor is the latest change
        time among its items that the query already saw (not one changed while being read),
        just before it, so an item sharing that time is read again rather than missed."""
        after = datetime.fromisoformat(cursor) if cursor else None
        while True:
            ids, as_of = await self._query(item_types, query, after)
            for start in range(0, len(ids), BATCH):
                items = await self.read(ids[start : start + BATCH])
                seen = [
                    item.changed_at
                    for item in items
                    if item.changed_at is not None and (as_of is None or item.changed_at <= as_of)
                ]
                if seen:
                    after = max(seen) - TIE
                yield Changed(items, after.isoformat() if after else (cursor or ""))
            if len(ids) < WIQL_LIMIT:
                return

    async def ids_in_scope(self, *, item_types: Sequence[str], query: str | None) -> set[str]:
        ids, _ = await self._query(item_types, query, None)
        return set(ids)

    async def read(self, ids: Sequence[str]) -> Sequence[SourceItem]:
        client = self._client
        found: list[SourceItem] = []
        for start in range(0, len(ids), BATCH):
            answer = await client.call(
                "POST",
                client.url(self._project_ref, "_apis", "wit", "workitemsbatch"),
                body={"ids": [int(i) for i in ids[start : start + BATCH]], "errorPolicy": "omit"},
                what="read work items",
            )
            for work_item in listed(answer):
                if work_item:
                    found.append(await self._item(work_item))
        return found

    async def _item(self, work_item: dict[str, Any]) -> SourceItem:
        item_type = str((work_item.get("fields") or {}).get(fields.WORK_ITEM_TYPE) or "")
        type_fields = await self._fields_of(item_type) if item_type else frozenset()
        web = self._client.url(self._project_ref, "_workitems", "edit", str(work_item["id"]))
        return fields.source_item(work_item, type_fields, web_url=str(web))

    # Writing

    async def create(self, change: SourceChange) -> SourceItem:
        client = self._client
        operations = fields.patch(change, await self._fields_of(change.item_type), creating=True)
        answer = await client.call(
            "POST",
            client.url(self._project_ref, "_apis", "wit", "workitems", f"${change.item_type}"),
            body=operations,
            content_type=JSON_PATCH,
            what=f"create a {change.item_type}",
        )
        return await self._item(answer)

    async def update(self, item_id: str, change: SourceChange) -> SourceItem:
        client = self._client
        operations = fields.patch(change, await self._fields_of(change.item_type), creating=False)
        answer = await client.call(
            "PATCH",
            client.url(self._project_ref, "_apis", "wit", "workitems", item_id),
            body=operations,
            content_type=JSON_PATCH,
            what=f"update work item {item_id}",
        )
        return await self._item(answer)

    async def delete(self, item_id: str) -> None:
        client = self._client
        try:
            await client.call(
                "DELETE",
                client.url(self._project_ref, "_apis", "wit", "workitems", item_id),
                what=f"delete work item {item_id}",
            )
        except SourceNotFound:
            return  # gone already

    # Comments

    async def comments(self, item_id: str) -> Sequence[SourceComment]:
        ids = await self._comment_ids(item_id)
        client = self._client
        found: list[SourceComment] = []
        for start in range(0, len(ids), BATCH):
            answer = await client.call(
                "GET",
                client.url(self._project_ref, "_apis", "wit", "workItems", item_id, "comments"),
                params={"ids": ",".join(ids[start : start + BATCH])},
                api_version=COMMENTS_API,
                what=f"read the comments of work item {item_id}",
            )
            listed_comments = (answer or {}).get("comments") or []
            found.extend(_comment(c) for c in listed_comments if not c.get("isDeleted"))
        return sorted(found, key=lambda comment: (comment.created_at, int(comment.id)))

    async def _comment_ids(self, item_id: str) -> list[str]:
        """The ids of the item's comments, from its revisions' comment references."""
        client = self._client
        ids: dict[str, None] = {}
        skip = 0
        while True:
            answer = await client.call(
                "GET",
                client.url(self._project_ref, "_apis", "wit", "workItems", item_id, "revisions"),
                params={"$top": str(REVISIONS_PAGE), "$skip": str(skip)},
                what=f"read the revisions of work item {item_id}",
            )
            revisions = listed(answer)
            for revision in revisions:
                ref = revision.get("commentVersionRef") or {}
                if ref.get("commentId") is not None:
                    ids[str(ref["commentId"])] = None
            if len(revisions) < REVISIONS_PAGE:
                return list(ids)
            skip += REVISIONS_PAGE

    async def add_comment(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        client = self._client
        said = f"<p><strong>{html.escape(author_name)}</strong>:</p>" + to_html(text)
        answer = await client.call(
            "POST",
            client.url(self._project_ref, "_apis", "wit", "workItems", item_id, "comments"),
            body={"text": said},
            api_version=COMMENTS_API,
            what=f"comment on work item {item_id}",
        )
        return _comment(answer)

    # Service hooks

    async def register_hooks(self, url: str, secret: str) -> HookRegistration:
        project = await self._read_project()
        client = self._client
        made = HookRegistration()
        for event in HOOK_EVENTS:
            subscription = {
                "publisherId": "tfs",
                "eventType": event,
                "resourceVersion": "1.0",
                "consumerId": "webHooks",
                "consumerActionId": "httpRequest",
                "publisherInputs": {"projectId": str(project.get("id") or "")},
                "consumerInputs": {
                    "url": url,
                    "basicAuthUsername": HOOK_USER,
                    "basicAuthPassword": secret,
                },
            }
            try:
                answer = await client.call(
                    "POST",
                    client.url("_apis", "hooks", "subscriptions"),
                    body=subscription,
                    what=f"subscribe to {event}",
                )
            except SourceUnauthorized as refused:
                await self.remove_hooks(made.ids)
                return HookRegistration(problem=refused.message)
            made.ids.append(str(answer["id"]))
        return made

    async def remove_hooks(self, ids: Sequence[str]) -> None:
        client = self._client
        for subscription in ids:
            try:
                await client.call(
                    "DELETE",
                    client.url("_apis", "hooks", "subscriptions", subscription),
                    what="remove a subscription",
                )
            except SourceNotFound:
                continue


def _category(state: dict[str, Any]) -> Category | None:
    return fields.CATEGORIES.get(str(state.get("category") or ""))


def _comment(answer: dict[str, Any]) -> SourceComment:
    created = fields.parse_time(answer.get("createdDate"))
    return SourceComment(
        id=str(answer["id"]),
        author=fields.person(answer.get("createdBy")),
        text=to_text(answer.get("text")),
        created_at=created if created is not None else datetime.min,
    )

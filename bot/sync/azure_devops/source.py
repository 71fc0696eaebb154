"""`Source` over Azure DevOps: one project of one organization, reached with a PAT.

The requests are those of the published description (REST API 7.1): the project
(`_apis/projects/{id}`), a type's states and fields (`wit/workitemtypes/{type}/…`), WIQL on
`System.ChangedDate` (`{team}/_apis/wit/wiql?timePrecision=true`, the project's default team)
with `workitemsbatch` reads of 200 ids, JSON Patch with a `test` of `/rev`, comments (the
service's list, paged by its continuation token) and service-hook subscriptions.
"""

from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import aiohttp
from yarl import URL

from bot.clock import Clock
from bot.events.ssrf import AllowList
from bot.fields.schemas import Category
from bot.projects.sources import SourceValue
from bot.sync.address import base_url
from bot.sync.azure_devops import fields
from bot.sync.azure_devops.client import JSON_PATCH, AzureDevOpsClient, listed
from bot.sync.azure_devops.comments import Comments
from bot.sync.azure_devops.known import KNOWN, Known
from bot.sync.azure_devops.wiql import changed_query
from bot.sync.pacer import PACER, HostPacer
from bot.sync.source import (
    Changed,
    CommentsThrough,
    HookRegistration,
    SourceChange,
    SourceItem,
    SourceNotFound,
    SourceProject,
    SourceUnauthorized,
)

BATCH = 200  # ids one workitemsbatch call reads at most
WIQL_LIMIT = 20_000  # ids one WIQL answer holds at most
HOOK_EVENTS = ("workitem.created", "workitem.updated", "workitem.deleted")
HOOK_USER = "tracker"
TIE = timedelta(microseconds=1)  # a cursor just before its time: items sharing it are read again


class AzureDevOpsSource(CommentsThrough):
    def __init__(
        self,
        http: aiohttp.ClientSession,
        *,
        base_url: URL,
        project: str,
        token: str,
        clock: Clock,
        pacer: HostPacer = PACER,
        wiql_top: int = WIQL_LIMIT,
        known: Known = KNOWN,
    ) -> None:
        self._wiql_top = wiql_top  # ids one WIQL answer holds (the service's limit)
        self._client = AzureDevOpsClient(http, base_url, token, clock=clock, pacer=pacer)
        self._clock, self._known = clock, known
        self._project_ref = project  # the project's name or id (its `sourceId`)
        self._comments = Comments(self._client, project)
        self._key = (str(base_url), project.lower())
        self._project: dict[str, Any] | None = None
        self._web: tuple[str, str] | None = None  # the project's name, its items' link base

    # The project and its types

    async def check(self) -> SourceProject:
        """Reads the project now, whatever is known (the credentials are what is checked)."""
        self._project = None
        project = await self._read_project(fresh=True)
        name = str(project.get("name") or self._project_ref)
        return SourceProject(
            id=str(project.get("id") or name), name=name, url=str(self._client.url(name))
        )

    async def _read_project(self, *, fresh: bool = False) -> dict[str, Any]:
        if self._project is None:
            now = self._clock.now()
            known = None if fresh else self._known.get(("project", *self._key), now=now)
            if known is None:
                client = self._client
                answer = await client.call(
                    "GET",
                    client.url("_apis", "projects", self._project_ref),
                    what="read the project",
                )
                known = answer if isinstance(answer, dict) else {}
                self._known.put(("project", *self._key), known, now=now)
            self._project = known
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
                _category(state),
            )
            for state in listed(answer)
            if state.get("name")
        ]

    async def _fields_of(self, item_type: str) -> frozenset[str]:
        """The reference names of the type's fields."""
        key, now = ("fields", *self._key, item_type.lower()), self._clock.now()
        names: frozenset[str] | None = self._known.get(key, now=now)
        if names is None:
            client = self._client
            answer = await client.call(
                "GET",
                client.url(self._project_ref, "_apis", "wit", "workitemtypes", item_type, "fields"),
                what=f"read the fields of {item_type}",
            )
            listed_names = (str(f.get("referenceName") or "") for f in listed(answer))
            names = frozenset(name for name in listed_names if name)
            self._known.put(key, names, now=now)
        return names

    # Reading

    async def _query(
        self, item_types: Sequence[str], area: str | None, after: datetime | None
    ) -> list[str]:
        """The ids WIQL finds (at most `wiql_top`), in its order."""
        project = await self._read_project()
        team = str((project.get("defaultTeam") or {}).get("id") or f"{project.get('name')} Team")
        name = str(project.get("name") or self._project_ref)
        client = self._client
        answer = await client.call(
            "POST",
            client.url(self._project_ref, team, "_apis", "wit", "wiql"),
            params={"timePrecision": "true", "$top": str(self._wiql_top)},
            body={"query": changed_query(name, item_types, changed_after=after, area=area)},
            what="query the work items",
        )
        answer = answer if isinstance(answer, dict) else {}
        ids = [str(ref["id"]) for ref in answer.get("workItems") or [] if "id" in ref]
        return ids

    async def changed_since(
        self, cursor: str | None, *, item_types: Sequence[str], query: str | None
    ) -> AsyncIterator[Changed]:
        """Pages of up to 200 items, oldest change first; a full WIQL answer is followed by
        another from where it ended. Each page's cursor is safe to resume from (`_resume_at`)."""
        after = datetime.fromisoformat(cursor) if cursor else None
        read: set[str] = set()
        while True:
            found = await self._query(item_types, query, after)
            ids = [item_id for item_id in found if item_id not in read]
            full = len(found) >= self._wiql_top
            if not ids:
                return
            for start in range(0, len(ids), BATCH):
                items = await self.read(ids[start : start + BATCH])
                read.update(item.id for item in items)
                final = start + BATCH >= len(ids) and not full
                after = _resume_at(items, final=final) or after
                yield Changed(items, after.isoformat() if after else (cursor or ""))
            if not full:
                return

    async def ids_in_scope(self, *, item_types: Sequence[str], query: str | None) -> set[str]:
        """Every id in scope, by WIQL answers following each other on `System.ChangedDate`."""
        ids: set[str] = set()
        after: datetime | None = None
        while True:
            found = await self._query(item_types, query, after)
            if not set(found) - ids:
                return ids
            ids.update(found)
            if len(found) < self._wiql_top:
                return ids
            after = _resume_at(await self.read(found[-BATCH:]), final=False) or after

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
        order = {item_id: index for index, item_id in enumerate(ids)}
        return sorted(found, key=lambda item: order.get(item.id, len(order)))

    async def _item(self, work_item: dict[str, Any]) -> SourceItem:
        item_type = str((work_item.get("fields") or {}).get(fields.WORK_ITEM_TYPE) or "")
        type_fields = await self._fields_of(item_type) if item_type else frozenset()
        return fields.source_item(work_item, type_fields, web_url=self._web_url(work_item["id"]))

    def _web_url(self, item_id: object) -> str:
        """Where a person opens the item (`…/{project}/_workitems/edit/{id}`)."""
        project = str((self._project or {}).get("name") or self._project_ref)
        if self._web is None or self._web[0] != project:
            self._web = (project, str(self._client.url(project, "_workitems", "edit")) + "/")
        return f"{self._web[1]}{item_id}"

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

    async def find_created(self, change: SourceChange, *, since: datetime) -> Sequence[SourceItem]:
        found = await self.read(await self._query([change.item_type], None, since))
        return [item for item in found if item.fields.title == change.fields.title]

    async def update(self, item_id: str, change: SourceChange) -> SourceItem:
        client = self._client
        operations = fields.patch(change, await self._fields_of(change.item_type), creating=False)
        if len(operations) == 1:  # the guard alone: nothing this type has changed
            return await self._current(item_id)
        answer = await client.call(
            "PATCH",
            client.url(self._project_ref, "_apis", "wit", "workitems", item_id),
            body=operations,
            content_type=JSON_PATCH,
            what=f"update work item {item_id}",
        )
        return await self._item(answer)

    async def _current(self, item_id: str) -> SourceItem:
        found = await self.read([item_id])
        if not found:
            raise SourceNotFound(f"work item {item_id} does not exist")
        return found[0]

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


def open_source(
    http: aiohttp.ClientSession,
    *,
    hostname: str,
    source_id: str,
    token: str,
    allowed: AllowList,
    clock: Clock,
) -> AzureDevOpsSource:
    """The connector for one linked project: `hostname` under the address rule (a refused one
    is `DestinationRefused` on `hostname`), `http` from `bot.sync.address.source_http`."""
    return AzureDevOpsSource(
        http, base_url=base_url(hostname, allowed), project=source_id, token=token, clock=clock
    )


def _resume_at(items: Sequence[SourceItem], *, final: bool) -> datetime | None:
    """Where the next pull starts after these items, read in WIQL's order.

    After the last page, the latest change time read. Inside the answer, a time no later than
    any item still unread: an item changed since the query ran moved to a time after them,
    and shows as later than an item read after it; such items, and the page's last (which
    nothing follows to judge it by), are passed over, and the time is set just before, so
    that items sharing it on the next page are read again rather than missed."""
    times = [item.changed_at for item in items if item.changed_at is not None]
    if final:
        return max(times, default=None)
    kept: datetime | None = None
    earliest_after: datetime | None = None
    for index in range(len(times) - 2, -1, -1):
        later = times[index + 1]
        earliest_after = later if earliest_after is None else min(earliest_after, later)
        if times[index] <= earliest_after and (kept is None or times[index] > kept):
            kept = times[index]
    return kept - TIE if kept is not None else None


def _category(state: dict[str, Any]) -> Category | None:
    return fields.CATEGORIES.get(str(state.get("category") or ""))

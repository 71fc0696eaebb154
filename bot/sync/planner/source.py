"""`Source` over Microsoft Planner (Graph v1.0): one plan, reached with an app registration's
client credentials. Tasks only; the requests are those of Graph's metadata: the plan
(`planner/plans/{id}`), its buckets, its tasks (paged by `@odata.nextLink`), a task and its
details, each written with `If-Match` and its own ETag; a pull reads the details in Graph's
JSON batches (`details`). Planner has no change notifications and no change query in v1.0:
pulls compare ETags (`cursor`)."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

import aiohttp
from yarl import URL

from bot.clock import Clock
from bot.events.ssrf import AllowList
from bot.projects.sources import PLANNER_STATES, SourceValue
from bot.sync.address import base_url
from bot.sync.pacer import PACER, HostPacer
from bot.sync.planner import cursor as cursors
from bot.sync.planner import fields
from bot.sync.planner.client import Credentials, GraphClient
from bot.sync.planner.details import read_details
from bot.sync.planner.people import Names
from bot.sync.planner.tokens import TOKENS, Tokens
from bot.sync.source import (
    Changed,
    HookRegistration,
    SourceChange,
    SourceComment,
    SourceItem,
    SourceNotFound,
    SourceProject,
    SourceRefused,
    SourceStale,
)

GRAPH = "https://graph.microsoft.com/v1.0"  # Planner's default address
PAGE = 100  # items one page of changes holds
AT_ONCE = 8  # requests (a JSON batch of details counts one) a read has in flight
DELETE_TRIES = 3  # a delete whose ETag moved meanwhile reads it again, this many times in all
_TASK_FIELDS = frozenset({"title", "state", "priority", "start_date", "due_date", "assignees"})
T = TypeVar("T")
NOT_SYNCED = "Planner keeps comments in group conversations; they are not synced"


class PlannerSource:
    def __init__(
        self,
        http: aiohttp.ClientSession,
        *,
        base_url: URL,
        plan_id: str,
        credentials: Credentials,
        clock: Clock,
        buckets: str | None = None,
        pacer: HostPacer = PACER,
        tokens: Tokens = TOKENS,
    ) -> None:
        cache = tokens.cache(
            str(credentials.authority),
            credentials.tenant_id,
            credentials.client_id,
            credentials.client_secret,
        )
        self._client = GraphClient(
            http, base_url, credentials, cache=cache, clock=clock, pacer=pacer
        )
        self._plan = plan_id
        self._names = Names(self._client)
        self._buckets = buckets  # the project's query: where a task made here goes first
        # The ids the last pull listed, by query: a poll looks for deletions right after its pull
        # (on the same connector), and Planner's listing is the whole plan, so it is not sent twice.
        self._listed: tuple[str | None, set[str]] | None = None

    # The plan

    async def check(self) -> SourceProject:
        client = self._client
        answer = await client.call(
            "GET", client.url("planner", "plans", self._plan), what="read the plan"
        )
        plan = answer if isinstance(answer, dict) else {}
        return SourceProject(id=str(plan.get("id") or self._plan), name=str(plan.get("title")))

    async def states(self, item_type: str) -> Sequence[SourceValue]:
        if item_type != fields.TASK:
            raise SourceNotFound(f"Planner has tasks only, no {item_type}")
        return PLANNER_STATES

    # Reading

    async def _tasks(self, query: str | None) -> list[dict[str, Any]]:
        """The plan's tasks (in the query's buckets, when it names some), every page."""
        client = self._client
        buckets = _bucket_ids(query)
        url: URL | None = client.url("planner", "plans", self._plan, "tasks")
        found: list[dict[str, Any]] = []
        while url is not None:
            answer = await client.call("GET", url, what="list the plan's tasks")
            page = answer if isinstance(answer, dict) else {}
            found += [
                task
                for task in page.get("value") or []
                if task.get("id") and (not buckets or task.get("bucketId") in buckets)
            ]
            next_link = page.get("@odata.nextLink")
            url = client.within(str(next_link)) if next_link else None
        return found

    async def changed_since(
        self, cursor: str | None, *, item_types: Sequence[str], query: str | None
    ) -> AsyncIterator[Changed]:
        """The tasks whose ETag moved since the cursor's poll, and this poll's turn of the
        sweep, with their details (read in JSON batches), in pages; the last page's cursor holds
        every ETag seen. A batch read cut short (throttled) hands on what it read, then raises."""
        if fields.TASK not in item_types:
            return
        before = cursors.loads(cursor)
        tasks = await self._tasks(query)
        self._listed = (query, {str(t["id"]) for t in tasks})
        after = cursors.Cursor(before.poll + 1, {t["id"]: cursors.digest(_etag(t)) for t in tasks})
        wanted = [t for t in tasks if before.moved(t["id"], _etag(t)) or before.swept(t["id"])]
        # A page's cursor, should the pull stop after it: what was read so far counts as seen.
        progress = cursors.Cursor(before.poll, dict(before.seen))
        for start in range(0, len(wanted), PAGE):
            chunk = wanted[start : start + PAGE]
            read = await read_details(self._client, [t["id"] for t in chunk], at_once=AT_ONCE)
            items = await _bounded(
                [
                    self._names.named(fields.source_item(task, found))
                    for task in chunk
                    if (found := read.found.get(task["id"])) is not None  # None: gone since
                ]
            )
            if read.failure is not None:  # what was read is kept; the rest, next pull
                progress.seen.update({task_id: after.seen[task_id] for task_id in read.found})
                yield Changed(items, progress.dumps())
                raise read.failure
            if start + PAGE >= len(wanted):
                yield Changed(items, after.dumps())
                return
            progress.seen.update({t["id"]: after.seen[t["id"]] for t in chunk})
            yield Changed(items, progress.dumps())
        yield Changed([], after.dumps())  # nothing to read: the poll is counted all the same

    async def ids_in_scope(self, *, item_types: Sequence[str], query: str | None) -> set[str]:
        if fields.TASK not in item_types:
            return set()
        listed, self._listed = self._listed, None
        if listed is not None and listed[0] == query:
            return listed[1]
        return {str(task["id"]) for task in await self._tasks(query)}

    async def read(self, ids: Sequence[str]) -> Sequence[SourceItem]:
        items = await _bounded([self._read_one(item_id) for item_id in ids])
        return [item for item in items if item is not None]

    async def _read_one(self, item_id: str) -> SourceItem | None:
        try:
            return await self._with_details(await self._task(item_id))
        except SourceNotFound:
            return None

    async def _task(self, item_id: str) -> dict[str, Any]:
        client = self._client
        answer = await client.call(
            "GET", client.url("planner", "tasks", item_id), what=f"read task {item_id}"
        )
        return answer if isinstance(answer, dict) else {}

    async def _details(self, item_id: str) -> dict[str, Any]:
        client = self._client
        answer = await client.call(
            "GET",
            client.url("planner", "tasks", item_id, "details"),
            what=f"read the details of task {item_id}",
        )
        return answer if isinstance(answer, dict) else {}

    async def _with_details(self, task: dict[str, Any]) -> SourceItem | None:
        try:
            found = fields.source_item(task, await self._details(str(task["id"])))
        except SourceNotFound:
            return None  # deleted since it was listed
        return await self._names.named(found)

    # Writing

    async def create(self, change: SourceChange) -> SourceItem:
        client = self._client
        body: dict[str, Any] = {"planId": self._plan, **fields.task_patch(change, {})}
        body["title"] = change.fields.title
        bucket = await self._bucket()
        if bucket is not None:
            body["bucketId"] = bucket
        answer = await client.call(
            "POST", client.url("planner", "tasks"), body=body, what="create a task"
        )
        task = answer if isinstance(answer, dict) else {}
        details = await self._details(str(task["id"]))
        if change.fields.body:
            details = await self._describe(str(task["id"]), change, details.get("@odata.etag"))
        return fields.source_item(task, details)

    async def _bucket(self) -> str | None:
        """Where a task made here goes: the project's first bucket, or the plan's first."""
        named = _bucket_ids(self._buckets)
        if named:
            return named[0]
        client = self._client
        answer = await client.call(
            "GET",
            client.url("planner", "plans", self._plan, "buckets"),
            what="read the plan's buckets",
        )
        listed = answer.get("value") or [] if isinstance(answer, dict) else []
        return str(listed[0]["id"]) if listed else None

    async def find_created(self, change: SourceChange, *, since: datetime) -> Sequence[SourceItem]:
        """Tasks this app made with the change's title after `since`. A create is two writes
        (the task, then its description): one found without the description it was sent with
        is finished here, so that what is linked holds all the create sent."""
        app = self._client.client_id
        made = [
            task
            for task in await self._tasks(None)
            if task.get("title") == change.fields.title
            and ((task.get("createdBy") or {}).get("application") or {}).get("id") == app
            and (fields.moment(task.get("createdDateTime")) or since) >= since
        ]
        items = await _bounded([self._finished(task, change) for task in made])
        return [item for item in items if item is not None]

    async def _finished(self, task: dict[str, Any], change: SourceChange) -> SourceItem | None:
        try:
            details = await self._details(str(task["id"]))
            if change.fields.body and not details.get("description"):
                details = await self._describe(str(task["id"]), change, details.get("@odata.etag"))
        except SourceNotFound:
            return None
        return fields.source_item(task, details)

    async def update(self, item_id: str, change: SourceChange) -> SourceItem:
        """The task's properties with `If-Match` its ETag, the description with the details'
        (either moved there: `SourceStale`). What the answer needs besides is read before the
        writes, so that a failure after them cannot leave a write made but reported failed."""
        task_etag, details_etag = fields.etags(change.version)
        writes_task = bool(change.changed & _TASK_FIELDS)
        writes_details = "body" in change.changed
        if (writes_task and task_etag is None) or (writes_details and details_etag is None):
            raise SourceStale(f"task {item_id}: its ETags are not known here")
        task = (
            await self._task(item_id) if "assignees" in change.changed or not writes_task else None
        )
        details = None if writes_details else await self._details(item_id)
        body = fields.task_patch(change, (task or {}).get("assignments") or {})
        if writes_task and body:
            client = self._client
            answer = await client.call(
                "PATCH",
                client.url("planner", "tasks", item_id),
                body=body,
                if_match=task_etag,
                representation=True,
                what=f"update task {item_id}",
            )
            task = answer if isinstance(answer, dict) else None
        if writes_details:
            details = await self._describe(item_id, change, details_etag)
        return fields.source_item(
            task if task is not None else await self._task(item_id),
            details if details is not None else await self._details(item_id),
        )

    async def _describe(
        self, item_id: str, change: SourceChange, etag: str | None
    ) -> dict[str, Any]:
        client = self._client
        answer = await client.call(
            "PATCH",
            client.url("planner", "tasks", item_id, "details"),
            body={"description": change.fields.body},
            if_match=etag or "",
            representation=True,
            what=f"update the description of task {item_id}",
        )
        if isinstance(answer, dict):
            return answer
        return await self._details(item_id)

    async def delete(self, item_id: str) -> None:
        client = self._client
        for _ in range(DELETE_TRIES):
            try:
                task = await self._task(item_id)
                await client.call(
                    "DELETE",
                    client.url("planner", "tasks", item_id),
                    if_match=_etag(task),
                    what=f"delete task {item_id}",
                )
                return
            except SourceNotFound:
                return  # gone already
            except SourceStale:
                continue  # changed since it was read: read it again
        raise SourceStale(f"task {item_id} kept changing while it was deleted")

    # Comments and hooks: Planner has neither to sync

    async def comments(self, item_id: str) -> Sequence[SourceComment]:
        return []  # Planner keeps comments in group conversations: not synced

    async def add_comment(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        raise SourceRefused("NotSynced", NOT_SYNCED)

    async def edit_comment(
        self, item_id: str, comment_id: str, text: str, *, author_name: str
    ) -> None:
        raise SourceRefused("NotSynced", NOT_SYNCED)

    async def delete_comment(self, item_id: str, comment_id: str) -> None:
        raise SourceRefused("NotSynced", NOT_SYNCED)

    async def register_hooks(self, url: str, secret: str) -> HookRegistration:
        return HookRegistration()  # no change notifications in Graph v1.0: polling only

    async def remove_hooks(self, ids: Sequence[str]) -> None:
        return None


def _etag(task: dict[str, Any]) -> str:
    return str(task.get("@odata.etag") or "")


def _bucket_ids(query: str | None) -> list[str]:
    return [part.strip() for part in (query or "").split(",") if part.strip()]


async def _bounded(reads: list[Awaitable[T]]) -> list[T]:
    """The reads' results in order, at most `AT_ONCE` in flight."""
    gate = asyncio.Semaphore(AT_ONCE)

    async def one(read: Awaitable[T]) -> T:
        async with gate:
            return await read

    return list(await asyncio.gather(*(one(read) for read in reads)))


def open_source(
    http: aiohttp.ClientSession,
    *,
    hostname: str,
    plan_id: str,
    secrets: Mapping[str, str],
    authority: str,
    allowed: AllowList,
    clock: Clock,
    buckets: str | None = None,
) -> PlannerSource:
    """The connector for one linked plan: `hostname` (Graph's `…/v1.0`, the default; a bare
    host gets `/v1.0`) and `authority` (ENTRA_AUTHORITY_URL) under the address rule (a refused
    one is `DestinationRefused`), `http` from `bot.sync.address.source_http`."""
    graph = base_url(hostname or GRAPH, allowed)
    if graph.path in ("", "/"):
        graph = graph / "v1.0"
    credentials = Credentials(
        authority=base_url(authority, allowed),
        tenant_id=secrets.get("tenant_id", ""),
        client_id=secrets.get("client_id", ""),
        client_secret=secrets.get("client_secret", ""),
    )
    return PlannerSource(
        http, base_url=graph, plan_id=plan_id, credentials=credentials, clock=clock, buckets=buckets
    )

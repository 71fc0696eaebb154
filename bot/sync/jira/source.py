"""`Source` over Jira Cloud (REST v3): one project of one site, reached with an email and an
API token.

Pulls search with JQL on `updated` (`POST /rest/api/3/search/jql`, paged by `nextPageToken`),
from two minutes before the last change read, written in the account's time zone (`GET
/rest/api/3/myself`): Jira compares JQL dates to the minute in that zone and indexes changes a
little late, so the window overlaps the last one; what it finds again unchanged (not after the
last change read), or twice in one pull, is passed over.
Jira has no guard against lost updates: a write reads the issue first and compares `updated`.
A status moves only along the workflow: the transition offered from the current status to one
mapped to the new status, else `Svc_TRANSITION_NOTFOUND` naming what the workflow offered.
"""

import asyncio
import weakref
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import aiohttp
from yarl import URL

from bot.clock import Clock
from bot.events.ssrf import AllowList
from bot.projects.sources import SourceValue
from bot.sync.address import base_url
from bot.sync.jira import fields
from bot.sync.jira.client import JiraClient
from bot.sync.jira.comments import Comments
from bot.sync.pacer import PACER, HostPacer
from bot.sync.source import (
    Changed,
    CommentsThrough,
    HookRegistration,
    SourceChange,
    SourceItem,
    SourceNotFound,
    SourceProject,
    SourceRefused,
    SourceStale,
)
from bot.sync_records.schemas import ItemSyncStatus

PAGE = 100  # issues one search page asks for with an item's fields
IDS_PAGE = 5000  # issues one search page holds at most when only ids are asked for
OVERLAP = timedelta(minutes=2)  # a pull starts this long before the last change read
TIE = timedelta(milliseconds=1)  # `updated`'s precision
JQL_TIME = "%Y-%m-%d %H:%M"
USER_NOT_FOUND = "Svc_USER_NOTFOUND"


class JiraSource(CommentsThrough):
    def __init__(
        self,
        http: aiohttp.ClientSession,
        *,
        site: URL,
        project: str,
        email: str,
        token: str,
        clock: Clock,
        pacer: HostPacer = PACER,
    ) -> None:
        self._client = JiraClient(http, site, email=email, token=token, clock=clock, pacer=pacer)
        self._comments = Comments(self._client)
        self._site = str(site).rstrip("/")
        self._project = project  # the project key (its `sourceId`)
        self._zone: tzinfo | None = None
        self._accounts: dict[str, str | None] = {}  # email, folded → account id (None: none)

    # The project and its statuses

    async def check(self) -> SourceProject:
        client = self._client
        answer = await client.call(
            "GET", client.url("project", self._project), what="read the project"
        )
        return SourceProject(
            id=str(answer.get("id") or self._project),
            name=str(answer.get("name") or self._project),
            url=f"{self._site}/browse/{self._project}",
        )

    async def states(self, item_type: str) -> Sequence[SourceValue]:
        """The project's statuses for the issue type, by status id, with their categories
        (SourceNotFound when the project has no such type)."""
        client = self._client
        answer = await client.call(
            "GET",
            client.url("project", self._project, "statuses"),
            what=f"read the statuses of {item_type}",
        )
        wanted = item_type.casefold()
        found = next(
            (t for t in answer or [] if str(t.get("name") or "").casefold() == wanted), None
        )
        if found is None:
            raise SourceNotFound(f"no issue type {item_type} in {self._project}")
        return [
            SourceValue(
                str(s["id"]),
                str(s.get("name") or s["id"]),
                fields.CATEGORIES.get(str((s.get("statusCategory") or {}).get("key") or "")),
            )
            for s in found.get("statuses") or []
            if s.get("id")
        ]

    # Reading

    async def _account_zone(self) -> tzinfo:
        if self._zone is None:
            client = self._client
            me = await client.call("GET", client.url("myself"), what="read the account")
            try:
                self._zone = ZoneInfo(str((me or {}).get("timeZone") or "UTC"))
            except (ZoneInfoNotFoundError, ValueError):
                self._zone = UTC
        return self._zone

    async def _jql(
        self, item_types: Sequence[str], query: str | None, since: datetime | None
    ) -> str:
        clauses = [f'project = "{self._project}"']
        if item_types:
            clauses.append("issuetype in (" + ", ".join(_quoted(t) for t in item_types) + ")")
        if since is not None:
            local = since.astimezone(await self._account_zone())
            clauses.append(f'updated >= "{local.strftime(JQL_TIME)}"')
        if query and query.strip():
            clauses.append(f"({query.strip()})")
        return " AND ".join(clauses) + " ORDER BY updated ASC, key ASC"

    async def _search(
        self, jql: str, wanted: list[str], *, page: int = PAGE
    ) -> AsyncIterator[tuple[list[dict[str, Any]], bool]]:
        """The search's pages of issues, following `nextPageToken`, each with whether it is
        the last."""
        client = self._client
        token: str | None = None
        while True:
            body: dict[str, Any] = {"jql": jql, "maxResults": page, "fields": wanted}
            if token:
                body["nextPageToken"] = token
            answer = await client.call(
                "POST", client.url("search", "jql"), body=body, what="search the issues"
            )
            answer = answer if isinstance(answer, dict) else {}
            token = answer.get("nextPageToken")
            final = bool(answer.get("isLast", True)) or not token
            yield list(answer.get("issues") or []), final
            if final:
                return

    async def changed_since(
        self, cursor: str | None, *, item_types: Sequence[str], query: str | None
    ) -> AsyncIterator[Changed]:
        """Pages of issues changed from `OVERLAP` before `cursor` (the last change read), oldest
        first; each page's cursor is its latest `updated` (inside the answer, just before it:
        issues sharing that time on the next page are read again rather than passed over)."""
        last = since = datetime.fromisoformat(cursor) if cursor else None
        jql = await self._jql(item_types, query, last - OVERLAP if last else None)
        seen: set[str] = set()
        async for page, final in self._search(jql, fields.READ):
            items = [fields.source_item(i, site=self._site) for i in page if i.get("key")]
            items = [item for item in items if item.id not in seen and _after(item, since)]
            seen.update(item.id for item in items)
            times = [item.changed_at for item in items if item.changed_at is not None]
            last = max([*times, *([last] if last else [])], default=None)
            if items and last is not None:
                yield Changed(items, (last if final else last - TIE).isoformat())
            elif items:
                yield Changed(items, cursor or "")

    async def ids_in_scope(self, *, item_types: Sequence[str], query: str | None) -> set[str]:
        ids: set[str] = set()
        jql = await self._jql(item_types, query, None)
        async for page, _ in self._search(jql, ["id"], page=IDS_PAGE):
            ids.update(str(i["key"]) for i in page if i.get("key"))
        return ids

    async def read(self, ids: Sequence[str]) -> Sequence[SourceItem]:
        found = []
        for key in ids:
            issue = await self._issue(key)
            if issue is not None:
                found.append(fields.source_item(issue, site=self._site))
        return found

    async def _issue(self, key: str) -> dict[str, Any] | None:
        client = self._client
        try:
            answer = await client.call(
                "GET",
                client.url("issue", key),
                params={"fields": ",".join(fields.READ)},
                what=f"read issue {key}",
            )
        except SourceNotFound:
            return None
        return answer if isinstance(answer, dict) else None

    # Writing

    async def create(self, change: SourceChange) -> SourceItem:
        client = self._client
        edits = fields.edits(change, await self._assignee(change))
        edits["summary"] = change.fields.title
        given = {"project": {"key": self._project}, "issuetype": {"name": change.item_type}}
        answer = await client.call(
            "POST",
            client.url("issue"),
            body={"fields": {**given, **{k: v for k, v in edits.items() if v is not None}}},
            what=f"create a {change.item_type}",
        )
        key = str(answer["key"])
        if "state" in change.changed:
            made = await self._issue(key)
            if made is not None:
                await self._moved(key, made, change)
        return await self._current(key)

    async def find_created(self, change: SourceChange, *, since: datetime) -> Sequence[SourceItem]:
        jql = await self._jql([change.item_type], None, since)
        found = []
        async for page, _ in self._search(jql, fields.READ):
            found += [fields.source_item(i, site=self._site) for i in page]
        return [item for item in found if item.fields.title == change.fields.title]

    async def update(self, item_id: str, change: SourceChange) -> SourceItem:
        """Reads the issue first (Jira has no guard): `updated` moved since `version` →
        SourceStale. Then the fields, then the status by its transition."""
        async with _writing(self._site, item_id):
            issue = await self._issue(item_id)
            if issue is None:
                raise SourceNotFound(f"issue {item_id} does not exist")
            held = str((issue.get("fields") or {}).get("updated") or "")
            if change.version is not None and held != change.version:
                raise SourceStale(f"issue {item_id} changed in Jira since it was read")
            edits = fields.edits(change, await self._assignee(change))
            if edits:
                client = self._client
                await client.call(
                    "PUT",
                    client.url("issue", item_id),
                    body={"fields": edits},
                    what=f"update issue {item_id}",
                )
            if "state" in change.changed:
                await self._moved(item_id, issue, change)
            return await self._current(item_id)

    async def _moved(self, key: str, issue: dict[str, Any], change: SourceChange) -> None:
        """`_move`, its refusal carrying the issue as it is (made, its fields written)."""
        try:
            await self._move(key, issue, change)
        except SourceRefused as refused:
            item = await self._current(key)
            raise SourceRefused(refused.code, refused.message, item=item) from None

    async def _move(self, key: str, issue: dict[str, Any], change: SourceChange) -> None:
        """The transition from the issue's status to one mapped to the new status (the first in
        the workflow's order); none → SourceRefused `Svc_TRANSITION_NOTFOUND`."""
        targets = change.states or frozenset({change.fields.state or ""})
        status = (issue.get("fields") or {}).get("status") or {}
        if str(status.get("id") or "") in targets:
            return  # the status there already maps to it
        client = self._client
        answer = await client.call(
            "GET", client.url("issue", key, "transitions"), what=f"read transitions of {key}"
        )
        offered = list((answer or {}).get("transitions") or [])
        chosen = next(
            (t for t in offered if str((t.get("to") or {}).get("id") or "") in targets), None
        )
        if chosen is None:
            names = ", ".join(str((t.get("to") or {}).get("name")) for t in offered) or "none"
            raise SourceRefused(
                ItemSyncStatus.TRANSITION_NOTFOUND.value,
                f"no transition of {key} from {status.get('name') or 'its status'} leads to a "
                f"status mapped to the new one; the workflow offers: {names}",
            )
        await client.call(
            "POST",
            client.url("issue", key, "transitions"),
            body={"transition": {"id": str(chosen["id"])}},
            what=f"move issue {key}",
        )

    async def _assignee(self, change: SourceChange) -> str | None:
        """The account id of the first assignee, when assignees go out: the person's id when
        the member is known here by their Jira account (a match kept, or made by hand), else
        found by email (`GET /rest/api/3/user/search`)."""
        if "assignees" not in change.changed or not change.fields.assignees:
            return None
        first = change.fields.assignees[0]
        if "@" not in first.id:  # an account id: Jira's never holds an "@"
            return first.id
        email = (first.email or first.id).strip().casefold()
        if email not in self._accounts:
            client = self._client
            answer = await client.call(
                "GET", client.url("user", "search"), params={"query": email}, what="find a user"
            )
            self._accounts[email] = next(
                (
                    str(u["accountId"])
                    for u in answer or []
                    if str(u.get("emailAddress") or "").casefold() == email
                ),
                None,
            )
        found = self._accounts[email]
        if found is None:
            raise SourceRefused(
                USER_NOT_FOUND,
                f"no Jira user shows the email of {first.display_name}: Jira may hide it; "
                "match the user by hand",
            )
        return found

    async def _current(self, key: str) -> SourceItem:
        found = await self.read([key])
        if not found:
            raise SourceNotFound(f"issue {key} does not exist")
        return found[0]

    async def delete(self, item_id: str) -> None:
        client = self._client
        try:
            await client.call(
                "DELETE", client.url("issue", item_id), what=f"delete issue {item_id}"
            )
        except SourceNotFound:
            return  # gone already

    # Webhooks

    async def register_hooks(self, url: str, secret: str) -> HookRegistration:
        """Jira's webhooks with a secret are registered by a Jira administrator, by hand."""
        return HookRegistration(
            problem=f"a Jira administrator registers the webhook (System → WebHooks): URL {url}, "
            "the project's hook secret, issue events; until then changes arrive by polling"
        )

    async def remove_hooks(self, ids: Sequence[str]) -> None:
        return None  # nothing was registered from here


def open_source(
    http: aiohttp.ClientSession,
    *,
    hostname: str,
    source_id: str,
    email: str,
    token: str,
    allowed: AllowList,
    clock: Clock,
) -> JiraSource:
    """The connector for one linked project: `hostname` the site (`https://x.atlassian.net`)."""
    return JiraSource(
        http,
        site=base_url(hostname, allowed),
        project=source_id,
        email=email,
        token=token,
        clock=clock,
    )


# The read before a write and the write are one step for an issue in this process: two
# sends of one item at once would both pass the read and the later one overwrite.
_LOCKS: "weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock]" = weakref.WeakValueDictionary()


@asynccontextmanager
async def _writing(site: str, key: str) -> AsyncIterator[None]:
    lock = _LOCKS.get((site, key))
    if lock is None:
        lock = _LOCKS[(site, key)] = asyncio.Lock()
    async with lock:
        yield


def _after(item: SourceItem, cursor: datetime | None) -> bool:
    """Whether the item changed after the last change read: the overlap's repeats are not."""
    return cursor is None or item.changed_at is None or item.changed_at > cursor


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

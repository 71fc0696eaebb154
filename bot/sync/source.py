"""The port between the sync engine and an external tracker.

A connector (Azure DevOps, Jira, Planner) implements `Source` over the vendor's HTTP API and
speaks only in the values below: the engine never sees a vendor's JSON, and a connector never
sees the database. Field values travel in our own terms, already converted (a description as the
body's text, a date as a `date`); what differs between sources is which fields a source has.
"""

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from bot.projects.sources import SourceValue


@dataclass(frozen=True, slots=True)
class SourcePerson:
    """A user of the source as an item names them: matched to a team member by `email`
    (Azure DevOps, Jira) or by `id` (Planner: the Entra object id)."""

    id: str
    display_name: str
    email: str | None = None


@dataclass(frozen=True, slots=True)
class SourceFields:
    """An item's synced fields in our terms. `None` means empty at the source; a field the
    source does not have for this item type is left out of `present`."""

    title: str
    body: str = ""
    state: str | None = None  # the source state's id (a mapping's `sourceId`)
    priority: str | None = None  # the source's own value: "1".."4", "High", "0".."10"
    severity: str | None = None  # Azure DevOps only: "2 - High"
    assignees: tuple[SourcePerson, ...] = ()
    start_date: date | None = None
    due_date: date | None = None
    completed_date: date | None = None
    present: frozenset[str] = frozenset()  # the names of the fields above this type has


@dataclass(frozen=True, slots=True)
class SourceItem:
    """An item as read from the source."""

    id: str  # Azure DevOps work item id, Jira issue key, Planner task id
    item_type: str  # the source's type name ("Bug", "Task")
    fields: SourceFields
    version: str  # the source's guard: Azure DevOps `rev`, Jira `updated`, Planner ETag
    changed_at: datetime | None  # when it last changed there; None when the source keeps no time
    changed_by: SourcePerson | None = None
    url: str | None = None  # where a person opens it
    # How many comments it has there, when the read says so without listing them (Azure
    # DevOps `System.CommentCount`; Jira: a mark of the count and the last edit): its comments
    # are read only when it moved. None: the source does not say, and they are read whenever
    # the item changed.
    comment_count: int | None = None


@dataclass(frozen=True, slots=True)
class SourceComment:
    """A comment on an item there: its id there (what keeps it from coming in twice)."""

    id: str
    author: SourcePerson | None
    text: str  # the body's text, converted from the source's rich text
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Changed:
    """One page of what changed since a cursor: the items, and the cursor to ask from next."""

    items: Sequence[SourceItem]
    cursor: str


@dataclass(frozen=True, slots=True)
class SourceChange:
    """What goes out: the fields that changed here (by `SourceFields` name), their new values,
    and the version the change was made against (the guard)."""

    item_type: str
    fields: SourceFields
    changed: frozenset[str]
    version: str | None = None  # None on a create
    # Every source state mapped to the item's status (several may be): a source that moves a
    # state only along its workflow (Jira) takes whichever of them it can reach.
    states: frozenset[str] = frozenset()


# What goes wrong, in the engine's terms; a connector raises only these.


class SourceError(Exception):
    """The source failed in a way worth retrying (5xx, timeout, network)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after  # seconds the source asked us to wait (429, 503)


class SourceThrottled(SourceError):
    """429 or 503: nothing may be sent to this source host for `retry_after` seconds."""


class SourceUnauthorized(Exception):
    """401/403: the credentials are wrong or lack a permission; the project's sync pauses."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class SourceNotFound(Exception):
    """The project, or one item, does not exist at the source (any more)."""


class SourceStale(Exception):
    """The guard failed: the item changed there since `version` was read; pull, then retry."""


class SourceRefused(Exception):
    """The source refused this item's change (400): its code and message, kept on the item.
    `item`: the item as the source holds it when part of the change went through all the same
    (Jira: an issue made, or its fields written, but no transition to its status)."""

    def __init__(self, code: str, message: str, *, item: SourceItem | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.item = item


@dataclass(frozen=True, slots=True)
class SourceProject:
    """What the check of a project found: its id and name there, and where people open it."""

    id: str
    name: str
    url: str | None = None


@dataclass(slots=True)
class HookRegistration:
    """The subscriptions made at the source for a project's hook calls (ids to remove them)."""

    ids: list[str] = field(default_factory=list)
    problem: str | None = None  # why none could be made (the sync log says so; polling goes on)


class Source(Protocol):
    """One external project, reached with its credentials. Every call may raise the errors
    above; none returns a vendor's raw JSON."""

    async def check(self) -> SourceProject:
        """Check the credentials and the project (SourceUnauthorized, SourceNotFound)."""
        ...

    async def states(self, item_type: str) -> Sequence[SourceValue]:
        """The type's states, each with its category (`bot.fields.schemas.Category`)."""
        ...

    def changed_since(
        self, cursor: str | None, *, item_types: Sequence[str], query: str | None
    ) -> AsyncIterator[Changed]:
        """Pages of the items changed after `cursor` (None: every item in scope), oldest first."""
        ...

    async def ids_in_scope(self, *, item_types: Sequence[str], query: str | None) -> set[str]:
        """Every item id in scope now (deletions there are the linked ids missing here)."""
        ...

    async def read(self, ids: Sequence[str]) -> Sequence[SourceItem]:
        """These items (the missing ones left out)."""
        ...

    async def create(self, change: SourceChange) -> SourceItem: ...

    async def find_created(self, change: SourceChange, *, since: datetime) -> Sequence[SourceItem]:
        """Items of the change's type and title made (or changed) there after `since`: where a
        create whose answer was lost is looked for before it is sent again."""
        ...

    async def update(self, item_id: str, change: SourceChange) -> SourceItem:
        """Write the changed fields with the source's guard (SourceStale when it fails)."""
        ...

    async def delete(self, item_id: str) -> None:
        """Delete it there (Azure DevOps: to the recycle bin); gone already is not an error."""
        ...

    async def comments(self, item_id: str) -> Sequence[SourceComment]:
        """The item's comments there, oldest first."""
        ...

    async def add_comment(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        """Comment on the item there, `text` said by `author_name` (the comment as made)."""
        ...

    async def edit_comment(
        self, item_id: str, comment_id: str, text: str, *, author_name: str
    ) -> None:
        """The comment's words there replaced, said as `add_comment` says them (SourceNotFound:
        it is gone)."""
        ...

    async def delete_comment(self, item_id: str, comment_id: str) -> None:
        """Delete the comment there; gone already is not an error."""
        ...

    async def register_hooks(self, url: str, secret: str) -> HookRegistration:
        """Ask the source to call `url` on changes (Azure DevOps service hooks); a source
        without subscriptions of its own returns an empty registration."""
        ...

    async def remove_hooks(self, ids: Sequence[str]) -> None: ...


class CommentsClient(Protocol):
    """A connector's comment requests, in the port's terms."""

    async def listed(self, item_id: str) -> Sequence[SourceComment]: ...

    async def add(self, item_id: str, text: str, *, author_name: str) -> SourceComment: ...

    async def edit(self, item_id: str, comment_id: str, text: str, *, author_name: str) -> None: ...

    async def delete(self, item_id: str, comment_id: str) -> None: ...


class CommentsThrough:
    """The port's comment methods, each handed to the connector's comments client."""

    _comments: CommentsClient

    async def comments(self, item_id: str) -> Sequence[SourceComment]:
        return await self._comments.listed(item_id)

    async def add_comment(self, item_id: str, text: str, *, author_name: str) -> SourceComment:
        return await self._comments.add(item_id, text, author_name=author_name)

    async def edit_comment(
        self, item_id: str, comment_id: str, text: str, *, author_name: str
    ) -> None:
        await self._comments.edit(item_id, comment_id, text, author_name=author_name)

    async def delete_comment(self, item_id: str, comment_id: str) -> None:
        await self._comments.delete(item_id, comment_id)

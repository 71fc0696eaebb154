"""Creating many items of one kind in one unit of work (an import): each checked as it is added,
by the rules `service.create_item` applies, then written together with a few statements, since
a create's several statements per item cost an import of thousands more than its checks do."""

from collections import defaultdict
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table

from bot import pending_events as events
from bot.db.tables import Item
from bot.db.uow import UnitOfWork
from bot.fields.catalog import Catalog, load_catalog_to_write
from bot.ids import new_ids
from bot.items import rules, service
from bot.items.assignees import set_assignees
from bot.items.schemas import AssigneeRef, BugCreate, TaskCreate
from bot.mappings.rule import Mappings
from bot.projects.service import ItemProject
from bot.schemas import ItemKind, Trigger

_ITEMS = cast(Table, Item.__table__)
# The columns the items of a batch usually share, given once per statement when they do (each
# value given is converted for the driver, a visible share of an import on SQLite).
_SHARED = (
    "channel_id",
    "kind",
    "entity_id",
    "sync_status",
    "created_by",
    "updated_by",
    "sync_at",
    "created_at",
    "updated_at",
)


class NewItems:
    """Items of one kind to create in the unit's channel: `add` checks one and keeps it, `write`
    stores those kept. With `record_events` off, nothing is written to the outbox, so no rule
    fires and nobody is notified."""

    def __init__(self, uow: UnitOfWork, kind: ItemKind, catalog: Catalog, record_events: bool):
        self._uow, self._kind, self._catalog = uow, kind, catalog
        self._record_events = record_events
        self._now = uow.clock.now()  # every item of a batch is created at one time
        self._projects: dict[str | None, tuple[ItemProject, Mappings | None]] = {}
        self._users: dict[str, str] = {}  # a reference → the member's user id
        self._kept: list[tuple[dict[str, Any], list[str]]] = []

    @classmethod
    async def open(cls, uow: UnitOfWork, *, kind: ItemKind, record_events: bool) -> "NewItems":
        """A batch in the unit's channel, its catalogue held against renames until commit."""
        assert uow.channel is not None, "items are created in a channel"
        catalog = await load_catalog_to_write(uow, channel_id=uow.channel.channel_id, kind=kind)
        return cls(uow, kind, catalog, record_events)

    def __len__(self) -> int:
        return len(self._kept)

    async def add(
        self, body: TaskCreate | BugCreate, *, created_at: datetime | None = None
    ) -> None:
        """Check one item as create does (a `DomainError` says why not) and keep it; an import's
        `created_at` (the original tracker's) replaces the time of the import."""
        project, mappings = await self._project(body.project_id)
        row = service.new_item_row(
            self._uow,
            kind=self._kind,
            body=body,
            catalog=self._catalog,
            project=project,
            mappings=mappings,
            now=self._now,
        )
        if created_at is not None:
            row["created_at"] = created_at
        self._kept.append((row, await self._assignees(body.assigned_to or [])))

    async def write(self) -> int:
        """Store the items kept since the last write, numbered in the order they were added;
        how many."""
        kept, self._kept = self._kept, []
        await write_rows(self._uow, self._kind, kept, record_events=self._record_events)
        return len(kept)

    async def _project(self, project_id: str | None) -> tuple[ItemProject, Mappings | None]:
        found = self._projects.get(project_id)
        if found is None:
            assert self._uow.channel is not None
            project = await service.item_project(
                self._uow, channel_id=self._uow.channel.channel_id, project_id=project_id
            )
            mappings = await service.mappings_for(self._uow, kind=self._kind, project=project)
            found = self._projects[project_id] = (project, mappings)
        return found

    async def _assignees(self, refs: list[AssigneeRef | str]) -> list[str]:
        """The members the refs name, in order, once each: `rules.resolve_assignees`, with each
        reference looked up once per batch."""
        user_ids: list[str] = []
        for ref in refs:
            reference = ref if isinstance(ref, str) else ref.reference
            user_id = self._users.get(reference)
            if user_id is None:
                [user] = await rules.resolve_assignees(self._uow, refs=[reference])
                user_id = self._users[reference] = user.id
            if user_id not in user_ids:
                user_ids.append(user_id)
        return user_ids


async def write_rows(
    uow: UnitOfWork,
    kind: ItemKind,
    kept: list[tuple[dict[str, Any], list[str]]],
    *,
    record_events: bool,
) -> list[str]:
    """Store new items of one kind, each a whole row (id and number left to this) with its
    assignees, numbered in this order with one take of the channel's counter; their ids. A row
    with no `source_id` is its own source."""
    if not kept:
        return []
    first_row = kept[0][0]
    same = [key for key in _SHARED if all(row[key] == first_row[key] for row, _ in kept)]
    first = await service.next_internal_ids(
        uow, channel_id=first_row["channel_id"], kind=kind, count=len(kept)
    )
    rows, ids = [], new_ids(len(kept))
    teams: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for (row, assignees), item_id, number in zip(
        kept, ids, range(first, first + len(kept)), strict=True
    ):
        row.update(id=item_id, source_id=row["source_id"] or item_id, internal_id=number)
        rows.append({key: value for key, value in row.items() if key not in same})
        teams[tuple(assignees)].append(item_id)
    await uow.insert_many(_ITEMS, rows, {key: first_row[key] for key in same})
    for team, item_ids in teams.items():
        await set_assignees(uow, item_ids=item_ids, user_ids=team, replace=False)
    if record_events:
        payloads = {
            row["id"]: {"item": service.created_fields(row, assignees, kind)}
            for row, assignees in kept
        }
        await events.record(uow, kind=kind, trigger=Trigger.ITEM_CREATED, payloads=payloads)
    return ids

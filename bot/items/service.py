"""Item rules for one item at a time: create, update, delete (bulk edit is in bulk.py)."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Integer, Table, bindparam, delete, insert, select, update

from bot import pending_events as events
from bot.db.statements import Prepared, Row
from bot.db.tables import Item, ItemAssignee, ItemCounter
from bot.db.text import fold_text
from bot.db.uow import UnitOfWork
from bot.errors import Invalid, ItemNotFound
from bot.fields.catalog import Catalog, CatalogValue, load_catalog_to_write, name_key
from bot.files import service as attachments
from bot.files.store import FileStore
from bot.ids import is_id, new_id
from bot.items import read, rules
from bot.items.assignees import set_assignees
from bot.items.deletions import ItemDeletions
from bot.items.schemas import BugCreate, BugPatch, TaskCreate, TaskPatch
from bot.mappings import rule as mapping_rule
from bot.mappings.rule import Mappings
from bot.projects import service as projects
from bot.projects.service import ItemProject
from bot.projects.sources import SourceKind
from bot.schemas import ItemKind, Trigger

_ITEMS = cast(Table, Item.__table__)
_COUNTERS = cast(Table, ItemCounter.__table__)
_COUNTER = _COUNTERS.c
# Values given as parameters, so the compiled statement is the same for every item.
_INSERT_ITEM = Prepared(insert(_ITEMS))
# One UPDATE … RETURNING: the row lock (PostgreSQL) or the write lock (SQLite) makes concurrent
# creates take turns, so no number is given twice.
_NEXT_INTERNAL_IDS = Prepared(
    update(_COUNTERS)
    .where(_COUNTER.channel_id == bindparam("channel"), _COUNTER.kind == bindparam("item_kind"))
    .values(last_internal_id=_COUNTER.last_internal_id + bindparam("count", type_=Integer()))
    .returning(_COUNTER.last_internal_id)
)
# The timestamps the created shape shows.
_SHOWN_TIMESTAMPS = ("start_date", "due_date", "completed_date", "created_at", "updated_at")
# Fields that always hold a value: PATCH may change them, never clear them.
NOT_NULL = ("name", "status", "priority", "severity", "project_id")
# Columns written with a change that its event does not name (the name's sort key follows it).
_NOT_SHOWN = ("status_id", "sync_status", "name_key")
# Free fields, stored as given.
FREE_FIELDS = ("body", "owner", "effort", "phase", "phase_name", "bucket", "bucket_name")


@dataclass(frozen=True)
class Created:
    row: dict[str, Any]  # the stored columns
    # The created shape without its OData links: what create answers and ITEM_CREATED carries
    # (built once for both).
    fields: dict[str, Any]


async def create_item(
    uow: UnitOfWork, *, kind: ItemKind, body: TaskCreate | BugCreate, entity_id: str | None
) -> Created:
    """A new item with the channel's defaults for what the body leaves out."""
    channel_id = _channel_id(uow)
    catalog = await load_catalog_to_write(uow, channel_id=channel_id, kind=kind)
    project = await item_project(uow, channel_id=channel_id, project_id=body.project_id)
    mappings = await mappings_for(uow, kind=kind, project=project)
    row = new_item_row(
        uow,
        kind=kind,
        body=body,
        catalog=catalog,
        project=project,
        mappings=mappings,
        now=uow.clock.now(),
    )
    assignees = await rules.resolve_assignees(uow, refs=body.assigned_to or [])
    item_id = new_id()
    row.update(
        id=item_id,
        source_id=item_id,
        internal_id=await next_internal_ids(uow, channel_id=channel_id, kind=kind, count=1),
        entity_id=entity_id,
    )
    # A Core insert: the ORM's unit of work would only add bookkeeping to one known row.
    await uow.execute(_INSERT_ITEM, row)
    await set_assignees(
        uow, item_ids=[item_id], user_ids=[user.id for user in assignees], replace=False
    )
    created = Created(row=row, fields=created_fields(row, [user.id for user in assignees], kind))
    await events.record(
        uow,
        kind=kind,
        trigger=Trigger.ITEM_CREATED,
        payloads={item_id: {"item": created.fields}},
    )
    return created


def new_item_row(
    uow: UnitOfWork,
    *,
    kind: ItemKind,
    body: TaskCreate | BugCreate,
    catalog: Catalog,
    project: ItemProject,
    mappings: Mappings | None,
    now: datetime,
) -> dict[str, Any]:
    """A new item's row, created at `now`, by every rule of create that the catalogue, the
    project and its mappings decide (assignees are checked apart); its id and number are left to
    the caller."""
    _check_source(body.source, project)
    project.check_takes(kind)
    # Only an absent or null value takes the default: "" names no status and is refused.
    status = (
        catalog.statuses.named(body.status)
        if body.status is not None
        else _primary(catalog, "status")
    )
    priority = (
        catalog.priorities.named(body.priority)
        if body.priority is not None
        else _primary(catalog, "priority")
    )
    severity = None
    if isinstance(body, BugCreate):
        given = body.severity
        severity = (
            catalog.severities.named(given) if given is not None else _primary(catalog, "severity")
        )
    if mappings is not None:
        mappings.refuse_unmapped(project_id=project.id, status=status, severity=severity)
    rules.check_dates(body.start_date, body.due_date)
    return {
        "id": None,
        "channel_id": project.channel_id,
        "kind": kind.value,
        "internal_id": None,
        "name": body.name,
        "name_key": fold_text(body.name),
        "status": status.name,
        "status_id": status.id,
        "priority": priority.name,
        "severity": severity.name if severity else None,
        "project_id": project.id,
        "source": project.source,
        "source_id": None,
        "start_date": body.start_date,
        "due_date": body.due_date,
        "completed_date": rules.completed_date(
            done_before=False,
            done_after=catalog.is_done(status.id),
            current=None,
            given=body.completed_date,
            given_explicitly="completed_date" in body.model_fields_set,
            now=now,
        ),
        "body": body.body,
        "owner": body.owner,
        "effort": body.effort,
        "phase": body.phase,
        "phase_name": body.phase_name,
        "bucket": body.bucket or [],
        "bucket_name": body.bucket_name,
        "entity_id": None,
        "sync_status": None,
        "sync_at": now,
        "created_by": _actor_id(uow),
        "updated_by": _actor_id(uow),
        "created_at": now,
        "updated_at": now,
    }


async def mappings_for(uow: UnitOfWork, *, kind: ItemKind, project: ItemProject) -> Mappings | None:
    """The mappings an item of `project` is checked against; None for a project that needs none."""
    if not SourceKind(project.source).needs_mapping:
        return None
    return await mapping_rule.load_mappings(uow, channel_id=project.channel_id, kind=kind)


async def update_item(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, patch: TaskPatch | BugPatch
) -> None:
    """Apply the fields sent; an update that changes nothing writes nothing and fires nothing."""
    # The catalogue before the item's row: a rename takes its lock first, then items' rows.
    catalog = await load_catalog_to_write(uow, channel_id=_channel_id(uow), kind=kind)
    item = await _load_for_update(uow, kind, item_id)
    sent = {field: getattr(patch, field) for field in patch.model_fields_set}
    for field in NOT_NULL:
        if field in sent and sent[field] is None:
            raise Invalid(events.json_name(field), "must not be null")
    new: dict[str, Any] = {key: sent[key] for key in FREE_FIELDS if key in sent}
    if "bucket" in new and new["bucket"] is None:
        new["bucket"] = []
    if "name" in sent:
        new["name"], new["name_key"] = sent["name"], fold_text(sent["name"])
    status = catalog.statuses.by_id.get(item.status_id or "")
    if "status" in sent:
        status = catalog.statuses.named(sent["status"])
    if "priority" in sent:
        new["priority"] = catalog.priorities.named(sent["priority"]).name
    severity = catalog.severities.by_key.get(name_key(item.severity or ""))
    if "severity" in sent and kind is ItemKind.BUG:
        severity = catalog.severities.named(sent["severity"])
        new["severity"] = severity.name
    project = await item_project(
        uow, channel_id=item.channel_id, project_id=sent.get("project_id") or item.project_id
    )
    _check_source(sent.get("source"), project)
    new.update(project_id=project.id, source=project.source)
    moved = project.id != item.project_id
    if moved:  # a bug left where it is may stay where enableBug was turned off since
        project.check_takes(kind)
    if status is not None and ("status" in sent or moved):
        # A status given, or a move to another project: the item shows its status again.
        new.update(status=status.name, status_id=status.id, sync_status=None)
    await _refuse_unmapped(
        uow,
        kind,
        project,
        status if "status" in sent or moved else None,
        severity if "severity" in new or moved else None,
    )
    for field in ("start_date", "due_date"):
        if field in sent:
            new[field] = sent[field]
    rules.check_dates(new.get("start_date", item.start_date), new.get("due_date", item.due_date))
    new["completed_date"] = rules.completed_date(
        done_before=catalog.is_done(item.status_id),
        done_after=catalog.is_done(new.get("status_id", item.status_id)),
        current=item.completed_date,
        given=sent.get("completed_date"),
        given_explicitly="completed_date" in sent,
        now=uow.clock.now(),
    )
    changes = [
        events.change(field, getattr(item, field), value)
        for field, value in new.items()
        if getattr(item, field) != value and field not in _NOT_SHOWN
    ]
    if "assigned_to" in sent:
        before = await _assignee_ids(uow, item.id)
        refs = sent["assigned_to"] or []
        after = [u.id for u in await rules.resolve_assignees(uow, refs=refs, kept=before)]
        if after != before:
            changes.append(events.change("assigned_to", before, after))
            await set_assignees(uow, item_ids=[item.id], user_ids=after, replace=True)
    if not changes and new.get("status_id", item.status_id) == item.status_id:
        return
    now = uow.clock.now()
    await uow.execute(
        update(Item)
        .where(Item.id == item.id)
        .values(**new, updated_at=now, updated_by=_actor_id(uow), sync_at=now)
    )
    await events.record(
        uow, kind=kind, trigger=Trigger.ITEM_UPDATED, payloads={item.id: {"changes": changes}}
    )


async def delete_item(
    uow: UnitOfWork, *, kind: ItemKind, item_id: str, files: FileStore, deletions: ItemDeletions
) -> None:
    """Remove the item, its assignees and its attachments for good (their files once the
    transaction has committed); its number is never given again."""
    # Lock first, so the snapshot read next is the state a concurrent change left (PostgreSQL).
    await _load_for_update(uow, kind, item_id)
    last_state = await read.get_details(uow, kind=kind, item_id=item_id)
    await attachments.forget_items_files(uow, item_ids=[item_id], store=files)
    await deletions.deleting(uow, item_ids=[item_id])  # its thread outlives its rows
    deleted = await uow.execute(
        delete(Item)
        .where(Item.id == item_id, Item.channel_id == _channel_id(uow))
        .returning(Item.id)
    )
    if not deleted:
        raise ItemNotFound(kind.type_label, item_id)
    await events.record(
        uow,
        kind=kind,
        trigger=Trigger.ITEM_DELETED,
        payloads={item_id: {"item": last_state}},
    )


def created_fields(row: dict[str, Any], assignee_ids: list[str], kind: ItemKind) -> dict[str, Any]:
    """The created shape of a new item's row, as create answers it and ITEM_CREATED carries it."""
    # The row holds datetimes, as written; the shape holds the API's text of them.
    fields = read.common_fields(row | {key: events.plain(row[key]) for key in _SHOWN_TIMESTAMPS})
    fields["projectId"] = row["project_id"]
    fields["assignedTo"] = assignee_ids
    if kind is ItemKind.BUG:
        fields["severity"] = row["severity"]
    return fields


async def next_internal_ids(uow: UnitOfWork, *, channel_id: str, kind: ItemKind, count: int) -> int:
    """Take the channel's next `count` numbers of the kind; the first of them."""
    values = {"channel": channel_id, "item_kind": kind.value, "count": count}
    numbers = await uow.execute(_NEXT_INTERNAL_IDS, values)
    assert numbers, "channels get their counters when they are added"
    return int(numbers[0]["last_internal_id"]) - count + 1


async def _load_for_update(uow: UnitOfWork, kind: ItemKind, item_id: str) -> Row:
    item = None
    if is_id(item_id):
        item = await uow.row(
            select(Item)
            .where(Item.id == item_id, Item.channel_id == _channel_id(uow), Item.kind == kind.value)
            .with_for_update()
        )
    if item is None:
        raise ItemNotFound(kind.type_label, item_id)
    return item


async def item_project(uow: UnitOfWork, *, channel_id: str, project_id: str | None) -> ItemProject:
    """The project an item names, of its channel, or the channel's own when it names none."""
    if project_id is None:
        return await projects.native_project(uow, channel_id=channel_id)
    return await projects.channel_project(uow, channel_id=channel_id, project_id=project_id)


async def _refuse_unmapped(
    uow: UnitOfWork,
    kind: ItemKind,
    project: ItemProject,
    status: CatalogValue | None,
    severity: CatalogValue | None,
) -> None:
    """The mapping rule (docs/api.md): an external project's item takes only mapped values."""
    if not SourceKind(project.source).needs_mapping or (status is None and severity is None):
        return
    mappings = await mapping_rule.load_mappings(uow, channel_id=project.channel_id, kind=kind)
    mappings.refuse_unmapped(project_id=project.id, status=status, severity=severity)


def _check_source(source: str | None, project: ItemProject) -> None:
    if source is not None and source != project.source:
        why = f"'{source}' contradicts the project's source '{project.source}'"
        raise Invalid("source", why)


def _primary(catalog: Catalog, field: str) -> CatalogValue:
    values = {"status": catalog.statuses, "priority": catalog.priorities}.get(
        field, catalog.severities
    )
    primary = values.primary
    assert primary is not None, f"every channel has a primary {field}"
    return primary


async def _assignee_ids(uow: UnitOfWork, item_id: str) -> list[str]:
    return await uow.values(
        select(ItemAssignee.user_id)
        .where(ItemAssignee.item_id == item_id)
        .order_by(ItemAssignee.position)
    )


def _actor_id(uow: UnitOfWork) -> str | None:
    return uow.actor.user_id if uow.actor else None


def _channel_id(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "item operations run in a channel"
    return uow.channel.channel_id

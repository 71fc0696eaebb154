"""An item read from the source, applied here: created or updated by its source id, its state
and priority through the mappings, its people matched (`people.py`), each field judged against
what was last seen there (a change on both sides: the later wins, a tie goes to the source)."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any, cast

from sqlalchemy import Table, select, update

from bot import pending_events as events
from bot.db.changes import write_changes
from bot.db.expressions import one_of
from bot.db.statements import Row
from bot.db.tables import Item, ItemAssignee, SyncRecord
from bot.db.text import fold_text
from bot.db.uow import UnitOfWork
from bot.items import read
from bot.items.assignees import set_assignees
from bot.items.batch import write_rows
from bot.schemas import ItemKind, Trigger
from bot.sync.engine import creates
from bot.sync.engine.context import ProjectContext
from bot.sync.source import SourceFields, SourceItem
from bot.sync_records.schemas import ItemSyncStatus
from bot.timestamps import parse_timestamp

INVALID = "Invalid"
_RECORDS = cast(Table, SyncRecord.__table__)
# Columns written with a change that its event does not name (the name's sort key follows it).
_NOT_SHOWN = ("status_id", "sync_status", "name_key")
# SourceFields name → the item's column (assignees apart).
COLUMNS = {
    "title": "name",
    "body": "body",
    "start_date": "start_date",
    "due_date": "due_date",
    "completed_date": "completed_date",
}


@dataclass
class Applied:
    item_id: str
    kind: ItemKind
    created: bool
    changes: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # log lines


def seen_of(item: SourceItem) -> dict[str, Any]:
    """The fields as the source holds them, as JSON keeps them (what a conflict compares)."""
    return seen_fields(item.fields)


def seen_fields(f: SourceFields) -> dict[str, Any]:
    """Fields as JSON keeps them in a sync record (`seen`, `sending`)."""
    return {
        "title": f.title,
        "body": f.body,
        "state": f.state,
        "priority": f.priority,
        "severity": f.severity,
        "assignees": [person.email or person.id for person in f.assignees],
        "start_date": f.start_date.isoformat() if f.start_date else None,
        "due_date": f.due_date.isoformat() if f.due_date else None,
        "completed_date": f.completed_date.isoformat() if f.completed_date else None,
    }


async def known(
    uow: UnitOfWork, ctx: ProjectContext, source_items: Sequence[SourceItem]
) -> dict[str, Row]:
    """The sync records of these source items, read in one select and held for update."""
    if not source_items:
        return {}
    records = await uow.rows(
        select(SyncRecord)
        .where(
            SyncRecord.project_id == ctx.project_id,
            one_of(SyncRecord.source_item_id, [item.id for item in source_items]),
        )
        .with_for_update()
    )
    return {record.source_item_id: record for record in records}


async def apply(uow: UnitOfWork, ctx: ProjectContext, source_item: SourceItem) -> Applied | None:
    """Store the source's item here; None when its type is not synced."""
    if source_item.item_type not in ctx.kinds:
        return None
    found = await known(uow, ctx, [source_item])
    return await apply_known(uow, ctx, source_item, found.get(source_item.id))


async def apply_known(
    uow: UnitOfWork, ctx: ProjectContext, source_item: SourceItem, record: Row | None
) -> Applied | None:
    """`apply`, the item's sync record (None: there is none) read and held already."""
    kind = ctx.kinds.get(source_item.item_type)
    if kind is None:
        return None
    if record is None:
        record = await creates.claim(
            uow, project_id=ctx.project_id, kind=kind, source_item=source_item
        )
        if record is None:
            [created] = await create_many(uow, ctx, [source_item])
            return created
    seen = seen_of(source_item)
    wanted, unmatched, assignees = _wanted(ctx, kind, source_item, seen)
    await ctx.people.keep(uow)
    now = uow.clock.now()
    if record.deleted:
        return None  # deleted here; the push deletes it there
    item = await uow.row(select(Item).where(Item.id == record.item_id).with_for_update())
    if item is None:
        return None
    applied = Applied(item.id, kind, created=False)
    there_at = source_item.changed_at or now
    dirty = dict(record.dirty)
    sending = record.sending or {}
    values: dict[str, Any] = {}
    # A person the source names who matched no member before (their mapping set since) does now.
    newly_matched = len(unmatched) < len(record.unmatched or [])
    for name, value in seen.items():
        if name not in source_item.fields.present and name != "title":
            continue
        if record.seen.get(name) == value and not (name == "assignees" and newly_matched):
            continue  # unchanged there: what is here stands
        if name in dirty and await _holds(uow, item, wanted.get(name, {}), name, assignees):
            dirty.pop(name)  # the value sent from here, read back: no conflict
        elif name in dirty and sending.get(name) == value:
            continue  # a write of ours whose answer was lost, read back: the later edit goes next
        elif name in dirty:
            here_at = parse_timestamp(dirty[name])
            if here_at > there_at:
                applied.conflicts.append(
                    f"{ctx.source}'s change of {name} was replaced by the later one made here"
                )
                continue
            applied.conflicts.append(
                f"{ctx.source}'s change of {name} replaced the one made here "
                f"({_shown(dirty[name])})"
            )
            dirty.pop(name)
        values.update(wanted.get(name, {}))
        if name == "assignees":
            values["assigned_to"] = assignees
    await _write(uow, item, values, applied, unmatched, now)
    before = dict(record)
    record["seen"], record["version"], record["seen_at"], record["dirty"] = (
        seen,
        source_item.version,
        there_at,
        dirty,
    )
    record["unmatched"], record["sending"] = unmatched, None
    await write_changes(uow, SyncRecord.item_id, record, before)
    if not dirty and item.sync_status == ItemSyncStatus.PENDING:
        await uow.execute(update(Item).where(Item.id == item.id).values(sync_status=None))
    return applied


def _wanted(
    ctx: ProjectContext, kind: ItemKind, source_item: SourceItem, seen: dict[str, Any]
) -> tuple[dict[str, dict[str, Any]], list[str], list[str]]:
    """Per source field, the item's columns it sets; the unmatched people; the matched ids."""
    f = source_item.fields
    title = {"name": f.title, "name_key": fold_text(f.title)}
    wanted: dict[str, dict[str, Any]] = {"title": title, "body": {"body": f.body}}
    for name in ("start_date", "due_date", "completed_date"):
        wanted[name] = {name: _moment(getattr(f, name))}
    statuses = ctx.mapped(kind, "status")
    status_id = statuses.inward.get(f.state or "")
    if status_id is None:
        wanted["state"] = {
            "status": INVALID,
            "status_id": None,
            "sync_status": ItemSyncStatus.MAPPING_NOTFOUND.value,
        }
    else:
        wanted["state"] = {
            "status": statuses.names[status_id],
            "status_id": status_id,
            "sync_status": None,
        }
    priorities = ctx.mapped(kind, "priority")
    priority_id = priorities.inward.get(f.priority or "") or priorities.primary
    if priority_id is not None:
        wanted["priority"] = {"priority": priorities.names[priority_id]}
    if kind is ItemKind.BUG:
        severities = ctx.mapped(kind, "severity")
        severity_id = severities.inward.get(f.severity or "") or severities.primary
        if severity_id is not None:
            wanted["severity"] = {"severity": severities.names[severity_id]}
    matched, unmatched = [], []
    for person in f.assignees:
        member = ctx.people.match(person)
        if member is None:
            unmatched.append(person.display_name)
        else:
            matched.append(member.user_id)
    return wanted, unmatched, matched


async def create_many(
    uow: UnitOfWork, ctx: ProjectContext, source_items: Sequence[SourceItem]
) -> list[Applied]:
    """Items new here (no sync record, of synced types, each once), written set-based as
    `admin import` writes: numbered with one take of the channel's counter per kind, one insert
    per table; no event recorded (the caller fires those of a pull)."""
    now = uow.clock.now()
    kept: dict[ItemKind, list[tuple[dict[str, Any], list[str]]]] = {}
    made: list[tuple[dict[str, Any], dict[str, Any], Applied]] = []
    for source_item in source_items:
        kind = ctx.kinds[source_item.item_type]
        seen = seen_of(source_item)
        wanted, unmatched, assignees = _wanted(ctx, kind, source_item, seen)
        row = _new_row(ctx, kind, source_item, wanted, now)
        kept.setdefault(kind, []).append((row, assignees))
        record = {
            "project_id": ctx.project_id,
            "source_item_id": source_item.id,
            "version": source_item.version,
            "seen": seen,
            "seen_at": source_item.changed_at,
            "dirty": {},
            "code": None,
            "message": None,
            "unmatched": unmatched,
            "deleted": False,
        }
        made.append((row, record, Applied("", kind, created=True)))
    if not made:
        return []
    await ctx.people.keep(uow)
    for kind, rows in kept.items():
        await write_rows(uow, kind, rows, record_events=False)
    for row, record, applied in made:
        record["item_id"] = applied.item_id = row["id"]
    await uow.insert_many(_RECORDS, [record for _, record, _ in made], {})
    return [applied for _, _, applied in made]


def _new_row(
    ctx: ProjectContext,
    kind: ItemKind,
    source_item: SourceItem,
    wanted: dict[str, dict[str, Any]],
    now: datetime,
) -> dict[str, Any]:
    """A new item's whole row (its id and number left to the batch writer)."""
    row: dict[str, Any] = {
        "id": None,
        "channel_id": ctx.channel_id,
        "kind": kind.value,
        "internal_id": None,
        "body": None,
        "owner": None,
        "severity": None,
        "project_id": ctx.project_id,
        "source": ctx.source.value,
        "source_id": source_item.id,
        "start_date": None,
        "due_date": None,
        "completed_date": None,
        "effort": None,
        "phase": None,
        "phase_name": None,
        "bucket": [],
        "bucket_name": None,
        "entity_id": None,
        "sync_status": None,
        "sync_at": now,
        "created_by": None,
        "updated_by": None,
        "created_at": now,
        "updated_at": now,
        "priority": "",
    }
    for columns in wanted.values():
        row.update(columns)
    return row


async def _write(
    uow: UnitOfWork,
    item: Row,
    values: dict[str, Any],
    applied: Applied,
    unmatched: list[str],
    now: datetime,
) -> None:
    assigned = values.pop("assigned_to", None)
    for column, value in values.items():
        if column not in _NOT_SHOWN and getattr(item, column) != value:
            applied.changes.append(events.change(column, getattr(item, column), value))
    if assigned is not None:
        before = await uow.values(
            select(ItemAssignee.user_id)
            .where(ItemAssignee.item_id == item.id)
            .order_by(ItemAssignee.position)
        )
        if before != assigned:
            applied.changes.append(events.change("assigned_to", before, assigned))
            await set_assignees(uow, item_ids=[item.id], user_ids=assigned, replace=True)
    if applied.changes or values.get("sync_status", item.sync_status) != item.sync_status:
        await uow.execute(
            update(Item).where(Item.id == item.id).values(**values, updated_at=now, sync_at=now)
        )


async def _holds(
    uow: UnitOfWork, item: Row, columns: dict[str, Any], name: str, assignees: list[str]
) -> bool:
    """Whether the item already holds the source's new value of `name`."""
    if name == "assignees":
        here = await uow.values(
            select(ItemAssignee.user_id)
            .where(ItemAssignee.item_id == item.id)
            .order_by(ItemAssignee.position)
        )
        return list(here) == assignees
    compared = {column: value for column, value in columns.items() if column != "sync_status"}
    return bool(compared) and all(getattr(item, c) == v for c, v in compared.items())


def _moment(day: date | None) -> datetime | None:
    return datetime.combine(day, time(), tzinfo=UTC) if day else None


def _shown(stamp: str) -> str:
    return f"made here at {stamp}"


async def details(uow: UnitOfWork, applied: Applied) -> dict[str, Any]:
    shown = await read.get_details(uow, kind=applied.kind, item_id=applied.item_id)
    return dict(shown)


async def fire(uow: UnitOfWork, applied: Applied) -> None:
    """The events of a change that came in (never for the first import)."""
    if applied.created:
        item = await details(uow, applied)
        # As every ITEM_CREATED carries them (`items.service.created_fields`): the ids only.
        item["assignedTo"] = [person["_id"] for person in item["assignedTo"]]
        await events.record(
            uow,
            kind=applied.kind,
            trigger=Trigger.ITEM_CREATED,
            payloads={applied.item_id: {"item": item}},
        )
    elif applied.changes:
        await events.record(
            uow,
            kind=applied.kind,
            trigger=Trigger.ITEM_UPDATED,
            payloads={applied.item_id: {"changes": applied.changes}},
        )

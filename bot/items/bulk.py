"""Bulk edit: each id judged on its own, all applied with a few set-based statements."""

from collections import defaultdict
from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update

from bot import pending_events as events
from bot.db.expressions import one_of_named
from bot.db.statements import Prepared, Row
from bot.db.tables import Item, ItemAssignee
from bot.db.uow import UnitOfWork
from bot.fields.catalog import MAPPING_NOT_FOUND, load_catalog_to_write
from bot.ids import is_id
from bot.items import rules
from bot.items.assignees import set_assignees
from bot.items.schemas import BulkEdit, BulkResult
from bot.mappings.rule import load_mappings
from bot.schemas import ItemKind, Trigger

NOT_FOUND = "Svc_NOTFOUND"
INVALID_DATES = "Svc_INVALID_DATES"
SUCCESS, ERROR = "success", "error"
# Columns a bulk edit may change.
EDITABLE = ("status", "priority", "severity", "start_date", "due_date", "completed_date")


async def bulk_edit(uow: UnitOfWork, *, kind: ItemKind, edit: BulkEdit) -> list[BulkResult]:
    """Bulk edit (docs/api.md): a bad value for everyone is a 400, a bad id only its own error."""
    assert uow.channel is not None
    catalog = await load_catalog_to_write(uow, channel_id=uow.channel.channel_id, kind=kind)
    target: dict[str, Any] = {}
    status_id = severity_id = None
    if edit.status is not None:
        status = catalog.statuses.named(edit.status)
        status_id = status.id
        target.update(status=status.name, status_id=status.id, sync_status=None)
    if edit.priority is not None:
        target["priority"] = catalog.priorities.named(edit.priority).name
    if edit.severity is not None and kind is ItemKind.BUG:  # tasks have no severity
        severity = catalog.severities.named(edit.severity)
        severity_id = severity.id
        target["severity"] = severity.name
    mappings = None
    if status_id or severity_id:
        mappings = await load_mappings(uow, channel_id=uow.channel.channel_id, kind=kind)
    for field in ("start_date", "due_date"):
        if getattr(edit, field) is not None:
            target[field] = getattr(edit, field)
    assignees = None
    if edit.assigned_to:
        assignees = [user.id for user in await rules.resolve_assignees(uow, refs=edit.assigned_to)]

    items = await _load(uow, kind, edit.ids)
    current_assignees = await _assignees(uow, list(items)) if assignees is not None else {}
    now = uow.clock.now()
    results: dict[str, BulkResult] = {}
    updates: dict[str, dict[str, Any]] = {}
    changes: dict[str, list[dict[str, Any]]] = {}
    differ = events.Differ()
    # Rows by subscript: a thousand items, a dozen columns each, read in a loop.
    done_after = None if status_id is None else catalog.is_done(status_id)
    for item_id in dict.fromkeys(edit.ids):
        item = items.get(item_id)
        if item is None:
            results[item_id] = BulkResult(id=item_id, name=None, status=ERROR, error=NOT_FOUND)
            continue
        if mappings and mappings.unmapped_field(
            project_id=item["project_id"], status_id=status_id, severity_id=severity_id
        ):
            results[item_id] = BulkResult(
                id=item_id, name=item["name"], status=ERROR, error=MAPPING_NOT_FOUND
            )
            continue
        done_before = catalog.is_done(item["status_id"])
        new = {**target}
        new["completed_date"] = rules.completed_date(
            done_before=done_before,
            done_after=done_before if done_after is None else done_after,
            current=item["completed_date"],
            given=edit.completed_date,
            given_explicitly=edit.completed_date is not None,
            now=now,
        )
        start, due = (
            new.get("start_date", item["start_date"]),
            new.get("due_date", item["due_date"]),
        )
        if not rules.dates_consistent(start, due):
            results[item_id] = BulkResult(
                id=item_id, name=item["name"], status=ERROR, error=INVALID_DATES
            )
            continue
        results[item_id] = BulkResult(id=item_id, name=item["name"], status=SUCCESS)
        diff = [
            differ.change(field, item[field], value)
            for field, value in new.items()
            if field in EDITABLE and item[field] != value
        ]
        before = current_assignees.get(item_id, [])
        if assignees is not None and assignees != before:
            diff.append(differ.change("assigned_to", before, assignees))
        if diff or new.get("status_id", item["status_id"]) != item["status_id"]:
            updates[item_id] = new
            changes[item_id] = diff

    await _apply(uow, updates, now)
    if assignees is not None:
        await set_assignees(uow, item_ids=list(updates), user_ids=assignees, replace=True)
    await events.record(
        uow,
        kind=kind,
        trigger=Trigger.ITEM_UPDATED,
        payloads={item_id: {"changes": diff} for item_id, diff in changes.items()},
    )
    return [results[item_id] for item_id in edit.ids]


async def _load(uow: UnitOfWork, kind: ItemKind, ids: list[str]) -> dict[str, Row]:
    """The columns an edit reads, of the ids that are items of this channel and kind, locked."""
    assert uow.channel is not None
    wanted = [item_id for item_id in dict.fromkeys(ids) if is_id(item_id)]
    if not wanted:
        return {}
    values = {"ids": wanted, "channel_id": uow.channel.channel_id, "kind": kind.value}
    return {row["id"]: row for row in await uow.rows(_LOCKED, values)}


async def _assignees(uow: UnitOfWork, item_ids: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    if item_ids:
        for row in await uow.rows(_ASSIGNED, {"ids": item_ids}):
            found[row["item_id"]].append(row["user_id"])
    return found


async def _apply(uow: UnitOfWork, updates: dict[str, dict[str, Any]], now: datetime) -> None:
    """One UPDATE per distinct set of new values (the completed date is what differs)."""
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
    for item_id, new in updates.items():
        groups[tuple(sorted(new.items()))].append(item_id)
    actor = uow.actor.user_id if uow.actor else None
    for values, item_ids in groups.items():
        statement = _update(tuple(name for name, _value in values))
        given = {f"new_{name}": value for name, value in values}
        await uow.execute(statement, {**given, "ids": item_ids, "now": now, "updated_by": actor})


_ITEM = cast(Table, Item.__table__).c
_ASSIGNEE = cast(Table, ItemAssignee.__table__).c
# Locked in one order by every edit: in the order of a plan (a scan follows where rows lie,
# and updates move them), two edits of the same rows could each wait for the other.
_LOCKED = Prepared(
    select(
        _ITEM.id,
        _ITEM.name,
        _ITEM.project_id,
        _ITEM.status_id,
        *(_ITEM[field] for field in EDITABLE),
    )
    .where(
        one_of_named(_ITEM.id, "ids"),
        _ITEM.channel_id == bindparam("channel_id"),
        _ITEM.kind == bindparam("kind"),
    )
    .order_by(_ITEM.id)
    .with_for_update()
)
_ASSIGNED = Prepared(
    select(_ASSIGNEE.item_id, _ASSIGNEE.user_id)
    .where(one_of_named(_ASSIGNEE.item_id, "ids"))
    .order_by(_ASSIGNEE.item_id, _ASSIGNEE.position)
)


@cache  # one statement per set of columns an edit sets: a few dozen at most
def _update(columns: tuple[str, ...]) -> Prepared:
    new = {name: bindparam(f"new_{name}", type_=_ITEM[name].type) for name in columns}
    return Prepared(
        update(cast(Table, Item.__table__))
        .where(one_of_named(_ITEM.id, "ids"))
        .values(
            **new,
            updated_at=bindparam("now", type_=_ITEM.updated_at.type),
            updated_by=bindparam("updated_by", type_=_ITEM.updated_by.type),
            sync_at=bindparam("now", type_=_ITEM.sync_at.type),
        )
    )

"""Bulk edit: each id judged on its own, all applied with a few set-based statements."""

from collections import defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Row, select, update

from bot.db.expressions import one_of
from bot.db.tables import Item, ItemAssignee
from bot.fields.catalog import load_catalog
from bot.ids import is_id
from bot.items import events, rules, versions
from bot.items.assignees import set_assignees
from bot.items.schemas import BulkEdit, BulkResult
from bot.mappings.rule import MAPPING_NOT_FOUND, load_mappings
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

NOT_FOUND = "Svc_NOTFOUND"
INVALID_DATES = "Svc_INVALID_DATES"
SUCCESS, ERROR = "success", "error"
# Columns a bulk edit may change.
EDITABLE = ("status", "priority", "severity", "start_date", "due_date", "completed_date")


async def bulk_edit(uow: UnitOfWork, *, kind: ItemKind, edit: BulkEdit) -> list[BulkResult]:
    """The seed's bulk edit; a bad value for everyone is a 400, a bad id only its own error."""
    assert uow.channel is not None
    catalog = await load_catalog(uow, channel_id=uow.channel.channel_id, kind=kind)
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
    for item_id in dict.fromkeys(edit.ids):
        item = items.get(item_id)
        if item is None:
            results[item_id] = BulkResult(id=item_id, name=None, status=ERROR, error=NOT_FOUND)
            continue
        if mappings and mappings.unmapped_field(
            project_id=item.project_id, status_id=status_id, severity_id=severity_id
        ):
            results[item_id] = BulkResult(
                id=item_id, name=item.name, status=ERROR, error=MAPPING_NOT_FOUND
            )
            continue
        new = {**target}
        new["completed_date"] = rules.completed_date(
            done_before=catalog.is_done(item.status_id),
            done_after=catalog.is_done(new.get("status_id", item.status_id)),
            current=item.completed_date,
            given=edit.completed_date,
            given_explicitly=edit.completed_date is not None,
            now=now,
        )
        start, due = new.get("start_date", item.start_date), new.get("due_date", item.due_date)
        if not rules.dates_consistent(start, due):
            results[item_id] = BulkResult(
                id=item_id, name=item.name, status=ERROR, error=INVALID_DATES
            )
            continue
        results[item_id] = BulkResult(id=item_id, name=item.name, status=SUCCESS)
        diff = [
            events.change(field, getattr(item, field), value)
            for field, value in new.items()
            if field in EDITABLE and getattr(item, field) != value
        ]
        before = current_assignees.get(item_id, [])
        if assignees is not None and assignees != before:
            diff.append(events.change("assigned_to", before, assignees))
        if diff or new.get("status_id", item.status_id) != item.status_id:
            updates[item_id] = new
            changes[item_id] = diff

    await _apply(uow, updates, now)
    if assignees is not None:
        await set_assignees(uow, item_ids=list(updates), user_ids=assignees, replace=True)
    if updates:
        await versions.bump(uow, channel_id=uow.channel.channel_id, kind=kind)
    await events.record(
        uow,
        kind=kind,
        trigger=events.ITEM_UPDATED,
        payloads={item_id: {"changes": diff} for item_id, diff in changes.items()},
    )
    return [results[item_id] for item_id in edit.ids]


async def _load(uow: UnitOfWork, kind: ItemKind, ids: list[str]) -> dict[str, Row[Any]]:
    """The columns an edit reads, of the ids that are items of this channel and kind, locked."""
    assert uow.channel is not None
    wanted = [item_id for item_id in dict.fromkeys(ids) if is_id(item_id)]
    if not wanted:
        return {}
    rows = await uow.session.execute(
        select(
            Item.id,
            Item.name,
            Item.project_id,
            Item.status_id,
            *(getattr(Item, field) for field in EDITABLE),
        )
        .where(
            one_of(Item.id, wanted),
            Item.channel_id == uow.channel.channel_id,
            Item.kind == kind.value,
        )
        # Locked in one order by every edit: in the order of a plan (a scan follows where rows
        # lie, and updates move them), two edits of the same rows could each wait for the other.
        .order_by(Item.id)
        .with_for_update()
    )
    return {row.id: row for row in rows}


async def _assignees(uow: UnitOfWork, item_ids: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    if item_ids:
        rows = await uow.session.execute(
            select(ItemAssignee.item_id, ItemAssignee.user_id)
            .where(one_of(ItemAssignee.item_id, item_ids))
            .order_by(ItemAssignee.item_id, ItemAssignee.position)
        )
        for item_id, user_id in rows:
            found[item_id].append(user_id)
    return found


async def _apply(uow: UnitOfWork, updates: dict[str, dict[str, Any]], now: datetime) -> None:
    """One UPDATE per distinct set of new values (the completed date is what differs)."""
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
    for item_id, new in updates.items():
        groups[tuple(sorted(new.items()))].append(item_id)
    actor = uow.actor.user_id if uow.actor else None
    for values, item_ids in groups.items():
        await uow.session.execute(
            update(Item)
            .where(one_of(Item.id, item_ids))
            .values(**dict(values), updated_at=now, updated_by=actor, sync_at=now)
            .execution_options(synchronize_session=False)
        )

"""Status rules: one primary per kind, unique names, value and order defaults, safe deletion."""

from typing import cast

from sqlalchemy import Table, delete, func, select, update

from bot.db.changes import write_changes
from bot.db.statements import Row
from bot.db.tables import FieldValue, Item
from bot.db.uow import UnitOfWork
from bot.errors import BadRequest, Invalid
from bot.fields import defaults, values
from bot.fields.catalog import (
    INVALID_STATUS,
    MAPPING_NOT_FOUND,
    PRIORITY,
    SEVERITY,
    STATUS,
    name_key,
)
from bot.fields.schemas import (
    CATEGORY_VALUE,
    RESERVED_STATUS_NAME,
    Category,
    StatusIn,
    StatusPatch,
)
from bot.ids import new_id
from bot.odata.query import Query
from bot.schemas import ItemKind

STATUS_EXISTS = "Status already existed."
_VALUES = cast(Table, FieldValue.__table__)


async def add_channel_defaults(uow: UnitOfWork, *, channel_id: str) -> None:
    """Give a new channel the default statuses, priorities and severities of each kind."""
    now = uow.clock.now()
    rows = []
    for kind in ItemKind:
        sets = [(STATUS, defaults.STATUSES), (PRIORITY, defaults.PRIORITIES)]
        if kind is ItemKind.BUG:
            sets.append((SEVERITY, defaults.SEVERITIES))
        for field, defaults_of_field in sets:
            for order, value in enumerate(defaults_of_field, start=1):
                rows.append(
                    {
                        "id": new_id(),
                        "field": field,
                        "type": kind.type_label,
                        "name": value.name,
                        "name_key": name_key(value.name),
                        "color": value.color,
                        "category": value.category,
                        "primary": value.primary,
                        "order": order,
                        "value": value.value,
                    }
                )
    same = {"channel_id": channel_id, "description": "", "created_at": now, "updated_at": now}
    await uow.insert_many(_VALUES, rows, same)


async def list_statuses(uow: UnitOfWork, *, query: Query) -> tuple[list[Row], int | None, bool]:
    """A page of the channel's statuses, the exact count if asked, and whether more follow."""
    return await values.list_values(uow, field=STATUS, query=query)


async def create_status(uow: UnitOfWork, *, body: StatusIn) -> Row:
    """Add a status to the channel; a duplicate name of the same type is a coded 400."""
    channel_id = values.channel_of(uow)
    _refuse_reserved_name(body.name)
    kind_values = await values.lock_kind(
        uow, channel_id=channel_id, field=STATUS, type_label=body.type
    )
    values.refuse_taken_name(kind_values, body.name, exists=STATUS_EXISTS)
    if body.primary:
        await values.clear_primary(uow, channel_id=channel_id, field=STATUS, type_label=body.type)
    return await values.add_value(
        uow,
        channel_id=channel_id,
        field=STATUS,
        type_label=body.type,
        name=body.name,
        color=body.color,
        description=body.description,
        primary=body.primary,
        order=values.next_order(kind_values) if body.order is None else body.order,
        value=CATEGORY_VALUE[body.category] if body.value is None else body.value,
        category=body.category,
    )


async def update_status(uow: UnitOfWork, *, status_id: str, patch: StatusPatch) -> None:
    """Change a status; renames reach its items, and a kind never loses its primary or Done."""
    status = await values.value_to_change(uow, field=STATUS, value_id=status_id, label="Status")
    before = dict(status)
    changes = patch.model_dump(exclude_unset=True)
    if changes.get("type") not in (None, status.type):
        raise Invalid("type", "a status cannot move to another kind")
    for field in ("name", "category", "color", "description", "primary", "order", "value"):
        if field in changes and changes[field] is None:
            raise Invalid(field, "must not be null")
    if "name" in changes and changes["name"] != status.name:
        if name_key(changes["name"]) != status.name_key:  # a change of case alone is no clash
            _refuse_reserved_name(changes["name"])
            kind_values = await values.lock_kind(
                uow, channel_id=status.channel_id, field=STATUS, type_label=status.type
            )
            values.refuse_taken_name(kind_values, changes["name"], exists=STATUS_EXISTS)
        status["name"], status["name_key"] = changes["name"], name_key(changes["name"])
        # Items showing Invalid (the status is unmapped for their project) keep showing it.
        await uow.execute(
            update(Item)
            .where(Item.status_id == status.id, Item.status != INVALID_STATUS)
            .values(status=status.name)
        )
    if changes.get("primary") is False and status.primary:
        raise BadRequest("primary: a kind always has one primary status; make another primary")
    if changes.get("primary") and not status.primary:
        await values.clear_primary(
            uow, channel_id=status.channel_id, field=STATUS, type_label=status.type
        )
        status["primary"] = True
    if changes.get("category") not in (None, status.category):
        await _refuse_losing_last_done(uow, status)
        status["category"] = changes["category"]
    for field in ("color", "description", "order", "value"):
        if field in changes:
            status[field] = changes[field]
    status["updated_at"] = uow.clock.now()
    await write_changes(uow, FieldValue.id, status, before)


async def delete_status(uow: UnitOfWork, *, status_id: str) -> None:
    """Delete a status; its items become Invalid until they get a status again."""
    status = await values.value_to_change(uow, field=STATUS, value_id=status_id, label="Status")
    if status.primary:
        raise BadRequest("The primary status cannot be deleted; make another status primary first.")
    await _refuse_losing_last_done(uow, status)
    await uow.execute(
        update(Item)
        .where(Item.status_id == status.id)
        .values(
            status=INVALID_STATUS,
            status_id=None,
            sync_status=MAPPING_NOT_FOUND,
            sync_at=uow.clock.now(),
        )
    )
    await uow.execute(delete(FieldValue).where(FieldValue.id == status.id))


def _refuse_reserved_name(name: str) -> None:
    if name_key(name) == RESERVED_STATUS_NAME:
        raise Invalid("name", "'Invalid' is what items show when their status is gone")


async def _refuse_losing_last_done(uow: UnitOfWork, status: Row) -> None:
    if status.category != Category.DONE:
        return
    done = await uow.value(
        select(func.count()).where(
            *values.same_kind(status.channel_id, STATUS, status.type),
            FieldValue.category == Category.DONE,
        )
    )
    if done == 1:
        raise BadRequest(f"'{status.name}' is the last Done status of {status.type} items.")

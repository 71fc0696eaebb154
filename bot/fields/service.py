"""Status rules: one primary per kind, unique names, value and order defaults, safe deletion."""

from sqlalchemy import ColumnElement, func, select, update

from bot.db.tables import FieldValue, Item
from bot.errors import BadRequest, CodedBadRequest, Invalid, NotFound
from bot.fields import defaults
from bot.fields.catalog import PRIORITY, SEVERITY, STATUS, name_key
from bot.fields.schemas import (
    CATEGORY_VALUE,
    RESERVED_STATUS_NAME,
    Category,
    StatusIn,
    StatusPatch,
)
from bot.ids import is_id, new_id
from bot.items import versions
from bot.mappings.rule import INVALID_STATUS, MAPPING_NOT_FOUND
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind
from bot.uow import UnitOfWork

STATUS_EXISTS = "Status already existed."


async def add_channel_defaults(uow: UnitOfWork, *, channel_id: str) -> None:
    """Give a new channel the default statuses, priorities and severities of each kind."""
    now = uow.clock.now()
    rows = []
    for kind in ItemKind:
        sets = [(STATUS, defaults.STATUSES), (PRIORITY, defaults.PRIORITIES)]
        if kind is ItemKind.BUG:
            sets.append((SEVERITY, defaults.SEVERITIES))
        for field, values in sets:
            for order, value in enumerate(values, start=1):
                rows.append(
                    FieldValue(
                        id=new_id(),
                        channel_id=channel_id,
                        field=field,
                        type=kind.type_label,
                        name=value.name,
                        name_key=name_key(value.name),
                        color=value.color,
                        category=value.category,
                        description="",
                        primary=value.primary,
                        order=order,
                        value=value.value,
                        created_at=now,
                        updated_at=now,
                    )
                )
    uow.session.add_all(rows)
    await uow.session.flush()


async def list_statuses(
    uow: UnitOfWork, *, query: Query
) -> tuple[list[FieldValue], int | None, bool]:
    """A page of the channel's statuses, the exact count if asked, and whether more follow."""
    statement = select(FieldValue).where(
        FieldValue.channel_id == _channel_id(uow), FieldValue.field == STATUS
    )
    rows, more = page((await uow.session.scalars(apply(statement, query))).all(), query)
    count = await uow.session.scalar(count_statement(statement, query)) if query.count else None
    return rows, count, more


async def create_status(uow: UnitOfWork, *, body: StatusIn) -> FieldValue:
    """Add a status to the channel; a duplicate name of the same type is the seed's 400."""
    channel_id = _channel_id(uow)
    await _refuse_taken_name(uow, channel_id=channel_id, type_label=body.type, name=body.name)
    if body.order is None:
        last = await uow.session.scalar(
            select(func.max(FieldValue.order)).where(*_same_kind(channel_id, body.type))
        )
        order = (last or 0) + 1
    else:
        order = body.order
    if body.primary:
        await _clear_primary(uow, channel_id=channel_id, type_label=body.type)
    now = uow.clock.now()
    status = FieldValue(
        id=new_id(),
        channel_id=channel_id,
        field=STATUS,
        type=body.type,
        name=body.name,
        name_key=name_key(body.name),
        color=body.color,
        category=body.category,
        description=body.description,
        primary=body.primary,
        order=order,
        value=CATEGORY_VALUE[body.category] if body.value is None else body.value,
        created_at=now,
        updated_at=now,
    )
    uow.session.add(status)
    await uow.session.flush()
    return status


async def update_status(uow: UnitOfWork, *, status_id: str, patch: StatusPatch) -> None:
    """Change a status; renames reach its items, and a kind never loses its primary or Done."""
    status = await get_status(uow, status_id=status_id)
    changes = patch.model_dump(exclude_unset=True)
    if changes.get("type") not in (None, status.type):
        raise Invalid("type", "a status cannot move to another kind")
    for field in ("name", "category", "color", "description", "primary", "order", "value"):
        if field in changes and changes[field] is None:
            raise Invalid(field, "must not be null")
    if "name" in changes and name_key(changes["name"]) != status.name_key:
        await _refuse_taken_name(
            uow, channel_id=status.channel_id, type_label=status.type, name=changes["name"]
        )
        status.name, status.name_key = changes["name"], name_key(changes["name"])
        # Items showing Invalid (the status is unmapped for their project) keep showing it.
        await uow.session.execute(
            update(Item)
            .where(Item.status_id == status.id, Item.status != INVALID_STATUS)
            .values(status=status.name)
        )
    if changes.get("primary") is False and status.primary:
        raise BadRequest("primary: a kind always has one primary status; make another primary")
    if changes.get("primary") and not status.primary:
        await _clear_primary(uow, channel_id=status.channel_id, type_label=status.type)
        status.primary = True
    if changes.get("category") not in (None, status.category):
        await _refuse_losing_last_done(uow, status)
        status.category = changes["category"]
    for field in ("color", "description", "order", "value"):
        if field in changes:
            setattr(status, field, changes[field])
    status.updated_at = uow.clock.now()
    await _items_changed(uow, status)
    await uow.session.flush()


async def delete_status(uow: UnitOfWork, *, status_id: str) -> None:
    """Delete a status; its items become Invalid until they get a status again."""
    status = await get_status(uow, status_id=status_id)
    if status.primary:
        raise BadRequest("The primary status cannot be deleted; make another status primary first.")
    await _refuse_losing_last_done(uow, status)
    await uow.session.execute(
        update(Item)
        .where(Item.status_id == status.id)
        .values(
            status=INVALID_STATUS,
            status_id=None,
            sync_status=MAPPING_NOT_FOUND,
            sync_at=uow.clock.now(),
        )
    )
    await _items_changed(uow, status)
    await uow.session.delete(status)
    await uow.session.flush()


async def get_status(uow: UnitOfWork, *, status_id: str) -> FieldValue:
    """A status of the request's channel; anything else is a 404."""
    status = await uow.session.get(FieldValue, status_id) if is_id(status_id) else None
    if status is None or status.field != STATUS or status.channel_id != _channel_id(uow):
        raise NotFound(f"Status '{status_id}' not found.")
    return status


async def _refuse_taken_name(
    uow: UnitOfWork, *, channel_id: str, type_label: str, name: str
) -> None:
    if name_key(name) == RESERVED_STATUS_NAME:
        raise Invalid("name", "'Invalid' is what items show when their status is gone")
    taken = await uow.session.scalar(
        select(FieldValue.id).where(
            *_same_kind(channel_id, type_label), FieldValue.name_key == name_key(name)
        )
    )
    if taken is not None:
        raise CodedBadRequest(STATUS_EXISTS)


async def _refuse_losing_last_done(uow: UnitOfWork, status: FieldValue) -> None:
    if status.category != Category.DONE:
        return
    done = await uow.session.scalar(
        select(func.count()).where(
            *_same_kind(status.channel_id, status.type), FieldValue.category == Category.DONE
        )
    )
    if done == 1:
        raise BadRequest(f"'{status.name}' is the last Done status of {status.type} items.")


async def _clear_primary(uow: UnitOfWork, *, channel_id: str, type_label: str) -> None:
    await uow.session.execute(
        update(FieldValue).where(*_same_kind(channel_id, type_label)).values(primary=False)
    )


async def _items_changed(uow: UnitOfWork, status: FieldValue) -> None:
    """Items of the status's kind render differently now: what lists cached must go."""
    await versions.bump(uow, channel_id=status.channel_id, kind=ItemKind(status.type.lower()))


def _same_kind(channel_id: str, type_label: str) -> tuple[ColumnElement[bool], ...]:
    return (
        FieldValue.channel_id == channel_id,
        FieldValue.field == STATUS,
        FieldValue.type == type_label,
    )


def _channel_id(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "status operations run in a channel"
    return uow.channel.channel_id

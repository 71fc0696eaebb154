"""Rules every field value (status, priority, severity) obeys, and its lookups in the channel:
names unique per kind whatever their case, one primary per kind, new values after the last."""

from collections.abc import Sequence

from sqlalchemy import ColumnElement, insert, select, update

from bot.db.statements import Row
from bot.db.tables import FieldValue
from bot.db.uow import UnitOfWork
from bot.errors import CodedBadRequest, NotFound
from bot.fields import catalog_locks
from bot.fields.catalog import name_key
from bot.ids import is_id, new_id
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind


def channel_of(uow: UnitOfWork) -> str:
    assert uow.channel is not None, "field value operations run in a channel"
    return uow.channel.channel_id


def same_kind(channel_id: str, field: str, type_label: str) -> tuple[ColumnElement[bool], ...]:
    """The values of one field for one item kind of a channel."""
    return (
        FieldValue.channel_id == channel_id,
        FieldValue.field == field,
        FieldValue.type == type_label,
    )


def kind_of(value: Row) -> ItemKind:
    """The item kind whose items a value applies to."""
    return ItemKind(value.type.lower())


async def list_values(
    uow: UnitOfWork, *, field: str, query: Query
) -> tuple[list[Row], int | None, bool]:
    """A page of the channel's values of one field, the exact count if asked, and whether more
    follow."""
    statement = select(FieldValue).where(
        FieldValue.channel_id == channel_of(uow), FieldValue.field == field
    )
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    return rows, count, more


async def value_to_change(uow: UnitOfWork, *, field: str, value_id: str, label: str) -> Row:
    """A value of this field in the request's channel, about to change or go (anything else is
    a 404 naming `label`). Read once the channel's catalogue is held alone until commit
    (`catalog_locks`): the item writes that read its old name have committed, and none reads it
    again until this unit has."""
    await catalog_locks.take(uow, channel_id=channel_of(uow))
    value = (
        await uow.row(select(FieldValue).where(FieldValue.id == value_id))
        if is_id(value_id)
        else None
    )
    if value is None or value.field != field or value.channel_id != channel_of(uow):
        raise NotFound(f"{label} '{value_id}' not found.")
    return value


async def lock_kind(uow: UnitOfWork, *, channel_id: str, field: str, type_label: str) -> list[Row]:
    """The kind's values, read once the channel's catalogue is held alone until commit: changes
    to it take turns, so the name, count, order and primary checks made on them hold until
    commit. (`FOR UPDATE` would not do: it locks the rows that exist, not the ones a concurrent
    create inserts, which READ COMMITTED then shows to neither create's check.)"""
    await catalog_locks.take(uow, channel_id=channel_id)
    return await uow.rows(select(FieldValue).where(*same_kind(channel_id, field, type_label)))


def refuse_taken_name(kind_values: Sequence[Row], name: str, *, exists: str) -> None:
    """The `{code, message}` 400 when another value of the kind has this name (docs/api.md)."""
    if any(value.name_key == name_key(name) for value in kind_values):
        raise CodedBadRequest(exists)


def next_order(kind_values: Sequence[Row]) -> int:
    return max((value.order for value in kind_values), default=0) + 1


async def clear_primary(uow: UnitOfWork, *, channel_id: str, field: str, type_label: str) -> None:
    await uow.execute(
        update(FieldValue).where(*same_kind(channel_id, field, type_label)).values(primary=False)
    )


async def add_value(
    uow: UnitOfWork,
    *,
    channel_id: str,
    field: str,
    type_label: str,
    name: str,
    color: str,
    description: str,
    primary: bool,
    order: int,
    value: int,
    category: str | None = None,
) -> Row:
    """A new value row of the channel (the caller has checked its rules)."""
    now = uow.clock.now()
    [row] = await uow.execute(
        insert(FieldValue)
        .values(
            id=new_id(),
            channel_id=channel_id,
            field=field,
            type=type_label,
            name=name,
            name_key=name_key(name),
            color=color,
            category=category,
            description=description,
            primary=primary,
            order=order,
            value=value,
            created_at=now,
            updated_at=now,
        )
        .returning(*FieldValue.__table__.c)
    )
    return row

"""Priorities and severities ("levels"): the rules statuses share (unique names, one primary per
kind), plus their own. Items hold a level by name, so a rename reaches them, and a level in use
is deleted only by moving its items to another one first; a channel has at most 8 severities."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import InstrumentedAttribute

from bot import pending_events as events
from bot.db.changes import write_changes
from bot.db.statements import Row
from bot.db.tables import FieldValue, Item
from bot.db.uow import UnitOfWork
from bot.errors import BadRequest, Conflict, Invalid
from bot.fields import values
from bot.fields.catalog import PRIORITY, SEVERITY, name_key
from bot.fields.schemas import LevelPatch, PriorityIn, SeverityIn
from bot.odata.query import Query
from bot.schemas import Trigger

MOST_SEVERITIES = 8


@dataclass(frozen=True)
class Scale:
    """What differs between priorities and severities."""

    field: str  # `field_values.field`
    label: str  # "Priority", as messages name one
    plural: str
    column: InstrumentedAttribute[Any]  # the item column holding a level's name
    most_per_channel: int | None = None

    @property
    def exists(self) -> str:
        """The duplicate-name text (docs/api.md, Statuses, priorities and severities)."""
        return f"{self.label} already existed."


PRIORITY_SCALE = Scale(PRIORITY, "Priority", "priorities", Item.priority)
SEVERITY_SCALE = Scale(
    SEVERITY, "Severity", "severities", Item.severity, most_per_channel=MOST_SEVERITIES
)


async def list_levels(
    uow: UnitOfWork, *, scale: Scale, query: Query
) -> tuple[list[Row], int | None, bool]:
    """A page of the channel's priorities (or severities), the exact count if asked, and
    whether more follow."""
    return await values.list_values(uow, field=scale.field, query=query)


async def create_level(uow: UnitOfWork, *, scale: Scale, body: PriorityIn | SeverityIn) -> Row:
    """Add a level; a duplicate name of the same type is a coded 400, and so is one too many."""
    channel_id = values.channel_of(uow)
    type_label = str(body.type)
    kind_values = await values.lock_kind(
        uow, channel_id=channel_id, field=scale.field, type_label=type_label
    )
    values.refuse_taken_name(kind_values, body.name, exists=scale.exists)
    # Severities are for bugs alone, so the values of their one kind are all the channel has.
    if scale.most_per_channel is not None and len(kind_values) >= scale.most_per_channel:
        raise BadRequest(
            f"A channel has at most {scale.most_per_channel} {scale.plural}; "
            "delete one before adding another."
        )
    if body.primary:
        await values.clear_primary(
            uow, channel_id=channel_id, field=scale.field, type_label=type_label
        )
    return await values.add_value(
        uow,
        channel_id=channel_id,
        field=scale.field,
        type_label=type_label,
        name=body.name,
        color=body.color,
        description=body.description,
        primary=body.primary,
        order=values.next_order(kind_values) if body.order is None else body.order,
        value=body.value,
    )


async def update_level(uow: UnitOfWork, *, scale: Scale, level_id: str, patch: LevelPatch) -> None:
    """Change a level; a rename reaches the items that hold it, and a kind keeps its primary."""
    level = await values.value_to_change(
        uow, field=scale.field, value_id=level_id, label=scale.label
    )
    before = dict(level)
    changes = patch.model_dump(exclude_unset=True)
    if changes.get("type") not in (None, level.type):
        raise Invalid("type", f"a {scale.label.lower()} cannot move to another kind")
    for field in ("name", "color", "description", "primary", "order", "value"):
        if field in changes and changes[field] is None:
            raise Invalid(field, "must not be null")
    if changes.get("primary") is False and level.primary:
        raise BadRequest(
            f"primary: a kind always has one primary {scale.label.lower()}; make another primary"
        )
    if "name" in changes and changes["name"] != level.name:
        await _rename(uow, scale, level, changes["name"])
    if changes.get("primary") and not level.primary:
        await values.clear_primary(
            uow, channel_id=level.channel_id, field=scale.field, type_label=level.type
        )
        level["primary"] = True
    for field in ("color", "description", "order", "value"):
        if field in changes:
            level[field] = changes[field]
    level["updated_at"] = uow.clock.now()
    await write_changes(uow, FieldValue.id, level, before)


async def delete_level(
    uow: UnitOfWork, *, scale: Scale, level_id: str, reassign_to: str | None
) -> None:
    """Delete a level no item holds (409 otherwise), or move its items to `reassign_to` first."""
    level = await values.value_to_change(
        uow, field=scale.field, value_id=level_id, label=scale.label
    )
    label = scale.label.lower()
    if level.primary:
        raise BadRequest(
            f"The primary {label} cannot be deleted; make another {label} primary first."
        )
    if reassign_to is None:
        used = await uow.value(select(func.count()).where(*_holding(scale, level)))
        if used:
            items = "item holds" if used == 1 else "items hold"
            raise Conflict(
                f"{used} {items} the {label} '{level.name}': pass ?reassignTo=<another {label}> "
                "to move them to it first."
            )
    else:
        target = await _reassign_target(uow, scale, level, reassign_to)
        await _reassign(uow, scale, level, target)
    await uow.execute(delete(FieldValue).where(FieldValue.id == level.id))


async def _rename(uow: UnitOfWork, scale: Scale, level: Row, name: str) -> None:
    """The new name on the level and on every item holding it (not an edit of those items)."""
    if name_key(name) != level.name_key:  # a change of case alone is no clash
        kind_values = await values.lock_kind(
            uow, channel_id=level.channel_id, field=scale.field, type_label=level.type
        )
        values.refuse_taken_name(kind_values, name, exists=scale.exists)
    await uow.execute(
        update(Item)
        .where(*_holding(scale, level))
        .values({scale.column: name})
        .execution_options(synchronize_session=False)
    )
    level["name"], level["name_key"] = name, name_key(name)


async def _reassign_target(uow: UnitOfWork, scale: Scale, level: Row, name: str) -> Row:
    """The level of the same field and kind that `?reassignTo` names; else a 400 saying why."""
    label = scale.label.lower()
    target = await uow.row(
        select(FieldValue).where(
            *values.same_kind(level.channel_id, scale.field, level.type),
            FieldValue.name_key == name_key(name),
        )
    )
    if target is None:
        choices = await uow.values(
            select(FieldValue.name)
            .where(
                *values.same_kind(level.channel_id, scale.field, level.type),
                FieldValue.id != level.id,
            )
            .order_by(FieldValue.order)
        )
        raise Invalid(
            "reassignTo",
            f"'{name}' is no {level.type} {label} of this channel (one of: {', '.join(choices)})",
        )
    if target.id == level.id:
        raise Invalid("reassignTo", f"must name another {label} than the one deleted")
    return target


async def _reassign(uow: UnitOfWork, scale: Scale, level: Row, target: Row) -> None:
    """Move the level's items to `target`, as an edit of each: updated, and ITEM_UPDATED fired."""
    now = uow.clock.now()
    actor = uow.actor.user_id if uow.actor else None
    moved = await uow.execute(
        update(Item)
        .where(*_holding(scale, level))
        .values(
            {
                scale.column: target.name,
                Item.updated_at: now,
                Item.updated_by: actor,
                Item.sync_at: now,
            }
        )
        .returning(Item.id)
        .execution_options(synchronize_session=False)
    )
    if not moved:
        return
    change = events.change(scale.field, level.name, target.name)
    await events.record(
        uow,
        kind=values.kind_of(level),
        trigger=Trigger.ITEM_UPDATED,
        payloads={row["id"]: {"changes": [change]} for row in moved},
    )


def _holding(scale: Scale, level: Row) -> tuple[Any, ...]:
    """The items that hold the level: of its channel and kind, with its name."""
    return (
        Item.channel_id == level.channel_id,
        Item.kind == values.kind_of(level).value,
        scale.column == level.name,
    )

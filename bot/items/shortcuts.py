"""What chat commands do beyond the REST API's verbs: name an item by its number, close it,
clone it. Each is built from the same rules as create and PATCH, so the two doors agree."""

from dataclasses import dataclass

from sqlalchemy import Select, select

from bot.db.tables import Channel, FieldValue, Item, Team
from bot.db.uow import UnitOfWork
from bot.directory import access
from bot.errors import BadRequest, NotFound
from bot.fields.catalog import STATUS
from bot.fields.schemas import Category
from bot.ids import is_id
from bot.items import read
from bot.items import service as items
from bot.items.schemas import CREATE, PATCH
from bot.items.service import Created
from bot.schemas import ItemKind


async def item_id_by_number(uow: UnitOfWork, *, kind: ItemKind, internal_id: int) -> str:
    """The id of the channel's item with this number (numbers are per channel and kind)."""
    assert uow.channel is not None, "numbers name items within a channel"
    item_id = await uow.value(
        select(Item.id).where(
            Item.channel_id == uow.channel.channel_id,
            Item.kind == kind.value,
            Item.internal_id == internal_id,
        )
    )
    if item_id is None:
        raise NotFound(f"There is no {kind.value} #{internal_id} in this channel.")
    return item_id


async def close_item(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> None:
    """Move the item to its kind's first Done status by order (filling its completed date)."""
    assert uow.channel is not None
    done = await uow.value(
        select(FieldValue.name)
        .where(
            FieldValue.channel_id == uow.channel.channel_id,
            FieldValue.field == STATUS,
            FieldValue.type == kind.type_label,
            FieldValue.category == Category.DONE,
        )
        .order_by(FieldValue.order, FieldValue.id)
        .limit(1)
    )
    if done is None:  # the status rules keep one Done status per kind; say so if they did not
        raise BadRequest(f"This channel has no Done status for {kind.plural}.")
    patch = PATCH[kind].model_validate({"status": done})
    await items.update_item(uow, kind=kind, item_id=item_id, patch=patch)


async def clone_item(uow: UnitOfWork, *, kind: ItemKind, item_id: str) -> Created:
    """A new item with the original's fields and assignees, in the primary status, without
    attachments or dates of completion."""
    original = await read.get_details(uow, kind=kind, item_id=item_id)
    fields = {
        "name": original["name"],
        "body": original.get("body"),
        "priority": original["priority"],
        "projectId": original["projectId"]["_id"],
        "assignedTo": [person["_id"] for person in original["assignedTo"]],
        "startDate": original.get("startDate"),
        "dueDate": original.get("dueDate"),
        "owner": original.get("owner"),
        "effort": original.get("effort"),
        "phase": original.get("phase"),
        "phaseName": original.get("phaseName"),
        "bucket": original.get("bucket"),
        "bucketName": original.get("bucketName"),
    }
    if kind is ItemKind.BUG:
        fields["severity"] = original.get("severity")
    body = CREATE[kind].model_validate(fields)
    return await items.create_item(uow, kind=kind, body=body, entity_id=original.get("entityId"))


@dataclass(frozen=True)
class Whereabouts:
    """A channel the caller may act in, as a chat names it."""

    team_id: str  # Teams ids
    channel_id: str
    team_name: str
    channel_name: str


def _readable(user_id: str) -> Select[str, str, str, str]:
    """The channels the user may read (the directory's rule), with their names."""
    return (
        select(
            Team.teams_id.label("team_id"),
            Channel.teams_id.label("channel_id"),
            Team.name.label("team_name"),
            Channel.name.label("channel_name"),
        )
        .select_from(Channel)
        .join(Team, Team.id == Channel.team_id)
        .where(access.readable_channels(user_id))
        .order_by(Team.name, Channel.name, Channel.id)
    )


async def channels_with_number(
    uow: UnitOfWork, *, kind: ItemKind, internal_id: int
) -> list[Whereabouts]:
    """The caller's channels that have an item of this kind and number (numbers are per channel)."""
    assert uow.actor is not None
    statement = _readable(uow.actor.user_id).join(Item, Item.channel_id == Channel.id)
    statement = statement.where(Item.kind == kind.value, Item.internal_id == internal_id)
    return [Whereabouts(**row) for row in await uow.rows(statement)]


async def readable_channels(uow: UnitOfWork) -> list[Whereabouts]:
    """Every channel the caller may act in."""
    assert uow.actor is not None
    return [Whereabouts(**row) for row in await uow.rows(_readable(uow.actor.user_id))]


async def locate_item(uow: UnitOfWork, *, item_id: str) -> tuple[ItemKind, Whereabouts]:
    """Which kind an item is and where it lives, if the caller may read it; a 404 otherwise."""
    assert uow.actor is not None
    statement = _readable(uow.actor.user_id).add_columns(Item.kind)
    statement = statement.join(Item, Item.channel_id == Channel.id).where(Item.id == item_id)
    row = await uow.row(statement) if is_id(item_id) else None
    if row is None:
        raise NotFound(f"Item '{item_id}' not found.")
    kind = row.pop("kind")
    return ItemKind(kind), Whereabouts(**row)

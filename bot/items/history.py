"""An item's history of changes, read from the events its changes recorded (newest first)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, select

from bot.db.tables import Item, PendingEvent, User
from bot.db.uow import UnitOfWork
from bot.errors import ItemNotFound
from bot.ids import is_id
from bot.odata.model import EntitySet, Property, SortKey
from bot.odata.model import PropertyKind as K
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind, Trigger
from bot.timestamps import format_timestamp

_KEY = Property("_id", PendingEvent.id, K.ID)
_AT = Property("at", PendingEvent.occurred_at, K.DATETIME)

HISTORY = EntitySet(
    name="history",
    properties={prop.name: prop for prop in (_KEY, _AT)},
    key=_KEY,
    default_order=(SortKey(_AT, descending=True),),  # newest first, ties newest id first
    select_only=frozenset({"kind", "actor", "source", "changes"}),
)


@dataclass(frozen=True)
class Page:
    entries: list[dict[str, Any]]
    count: int | None
    # The last row as read, sort values included, when more rows follow: the next link's key.
    last_read: Mapping[str, Any] | None


_KINDS = {
    Trigger.ITEM_CREATED.value: "created",
    Trigger.ITEM_UPDATED.value: "updated",
    Trigger.ITEM_DELETED.value: "deleted",
}
# What a created item's payload holds that is not a field a person gave: left out of its changes.
_NOT_GIVEN = frozenset(
    {"_id", "internalId", "source", "sourceId", "attachments", "createdAt", "updatedAt"}
)


async def list_history(uow: UnitOfWork, *, kind: ItemKind, item_id: str, query: Query) -> Page:
    """A page of the item's changes, with the exact count if asked. An id
    that never named an item of this channel and kind is a 404; a deleted item keeps its
    history."""
    assert uow.channel is not None
    channel_id = uow.channel.channel_id
    if not is_id(item_id):
        raise ItemNotFound(kind.type_label, item_id)
    source = await uow.value(
        select(Item.source).where(
            Item.id == item_id, Item.channel_id == channel_id, Item.kind == kind.value
        )
    )
    statement = (
        select(
            PendingEvent.id,
            PendingEvent.occurred_at,
            PendingEvent.trigger,
            PendingEvent.payload,
            User.id.label("user_id"),
            User.display_name,
        )
        .outerjoin(User, User.id == PendingEvent.actor_id)
        .where(
            PendingEvent.item_id == item_id,
            PendingEvent.channel_id == channel_id,
            PendingEvent.kind == kind.value,
            PendingEvent.trigger.in_(list(_KINDS)),
        )
    )
    if source is None and not await uow.value(select(exists(statement))):
        raise ItemNotFound(kind.type_label, item_id)
    rows, more = page(await uow.rows(apply(statement, query, keyed=True)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    last_read = rows[-1] if more else None
    return Page([_entry(row, source) for row in rows], count, last_read)


def _entry(row: Any, source: str | None) -> dict[str, Any]:
    payload = row["payload"]
    if row["trigger"] == Trigger.ITEM_CREATED.value:
        given = payload.get("item", {})
        changes = [
            {"field": name, "old": None, "new": value}
            for name, value in given.items()
            if name not in _NOT_GIVEN and value not in (None, [], "")
        ]
    else:
        changes = list(payload.get("changes", []))
    actor = None
    if row["user_id"] is not None:
        actor = {"_id": row["user_id"], "displayName": row["display_name"]}
    if source is None and row["trigger"] == Trigger.ITEM_DELETED.value:
        source = payload.get("item", {}).get("source")
    return {
        "_id": row["id"],
        "at": format_timestamp(row["occurred_at"]),
        "kind": _KINDS[row["trigger"]],
        "actor": actor,
        "source": None if actor is not None else source,
        "changes": changes,
    }

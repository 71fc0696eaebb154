"""What a change stream reads: the channel's list versions and its item changes since a time, and
the versions of every channel a user may read (the personal tab's stream)."""

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, select

from bot.db.tables import Channel, ItemCounter, PendingEvent
from bot.db.uow import UnitOfWork
from bot.directory.access import readable_channels
from bot.schemas import Trigger

Versions = dict[str, int]  # item kind → the channel's list version of that kind
# (channel id, item kind) → that list's version, for every channel a user may read
ReadableVersions = dict[tuple[str, str], int]

CHANGE_NAMES = {
    Trigger.ITEM_CREATED.value: "created",
    Trigger.ITEM_UPDATED.value: "updated",
    Trigger.ITEM_DELETED.value: "deleted",
}

_COUNTERS = cast(Table, ItemCounter.__table__).c
_EVENTS = cast(Table, PendingEvent.__table__).c


@dataclass(frozen=True, slots=True)
class ItemChange:
    id: str
    item_id: str
    kind: str  # bug | task
    change: str  # created | updated | deleted
    at: datetime


async def versions(uow: UnitOfWork, channel_id: str) -> Versions:
    rows = await uow.rows(
        select(_COUNTERS.kind, _COUNTERS.version).where(_COUNTERS.channel_id == channel_id)
    )
    return {row["kind"]: int(row["version"]) for row in rows}


async def readable_versions(uow: UnitOfWork, user_id: str) -> ReadableVersions:
    """The list versions of every channel the user may read: the channels read once, then one
    entry of the counters' primary key per channel and kind."""
    readable = select(Channel.id).where(readable_channels(user_id))
    rows = await uow.rows(
        select(_COUNTERS.channel_id, _COUNTERS.kind, _COUNTERS.version).where(
            _COUNTERS.channel_id.in_(readable)
        )
    )
    return {(row["channel_id"], row["kind"]): int(row["version"]) for row in rows}


def first_id_at(seconds: int) -> str:
    """What sorts before every id made at or after `seconds` (Unix time) and after every id
    made before: ids begin with their second."""
    return f"{max(seconds, 0) & 0xFFFFFFFF:08x}"


def id_seconds(change_id: str) -> int:
    """The second an id was made in (`bot.ids`)."""
    return int(change_id[:8], 16)


async def changes_after(
    uow: UnitOfWork, channel_id: str, after: str, limit: int
) -> list[ItemChange]:
    """Up to `limit` item changes of the channel whose ids sort after `after` (an id, or
    `first_id_at` a second: every id of that second and later), in id order. Ids begin with
    their second, so this reads a range of the primary key (every channel's latest changes,
    checked for the channel): no index of its own, which each change would pay for."""
    rows = await uow.rows(
        select(_EVENTS.id, _EVENTS.item_id, _EVENTS.kind, _EVENTS.trigger, _EVENTS.occurred_at)
        .where(
            _EVENTS.id > after,
            _EVENTS.channel_id == channel_id,
            _EVENTS.trigger.in_(list(CHANGE_NAMES)),
        )
        .order_by(_EVENTS.id)
        .limit(limit)
    )
    return [
        ItemChange(
            id=row["id"],
            item_id=row["item_id"],
            kind=row["kind"],
            change=CHANGE_NAMES[row["trigger"]],
            at=row["occurred_at"],
        )
        for row in rows
    ]

"""Pending events: written in the change's own transaction, consumed by the events engine later."""

from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Table, insert

from bot.db.statements import Prepared
from bot.db.tables import PendingEvent
from bot.db.uow import UnitOfWork
from bot.ids import new_id, new_ids
from bot.jobs import wakeups
from bot.schemas import ItemKind, Trigger
from bot.sync_records import outbox
from bot.timestamps import format_timestamp

_EVENTS = cast(Table, PendingEvent.__table__)
_INSERT = Prepared(insert(_EVENTS))


def plain(value: Any) -> Any:
    """A value as JSON carries it (timestamps as the API writes them)."""
    return format_timestamp(value) if isinstance(value, datetime) else value


@cache  # a handful of column names, asked for on every change of every item
def json_name(column: str) -> str:
    """An item column's name as the API writes it (`due_date` → `dueDate`, `id` → `_id`)."""
    if column == "id":
        return "_id"
    head, *rest = column.split("_")
    return head + "".join(part.capitalize() for part in rest)


def change(column: str, old: Any, new: Any) -> dict[str, Any]:
    """One changed column as events carry it, under its API name."""
    return {"field": json_name(column), "old": plain(old), "new": plain(new)}


class Differ:
    """`change` for many items given the same new values: each timestamp is written once."""

    __slots__ = ("_written",)

    def __init__(self) -> None:
        self._written: dict[datetime, str] = {}

    def change(self, column: str, old: Any, new: Any) -> dict[str, Any]:
        """One changed column as events carry it, under its API name."""
        return {"field": json_name(column), "old": self._plain(old), "new": self._plain(new)}

    def _plain(self, value: Any) -> Any:
        if not isinstance(value, datetime):
            return value
        written = self._written.get(value)
        if written is None:
            written = self._written[value] = format_timestamp(value)
        return written


async def record(
    uow: UnitOfWork, *, kind: ItemKind, trigger: Trigger, payloads: dict[str, dict[str, Any]]
) -> None:
    """One event per item (`payloads` maps item id to payload)."""
    if not payloads:
        return
    assert uow.channel is not None
    uow.on_commit(wakeups.ring)
    await outbox.note(uow, trigger=trigger, payloads=payloads)
    same = {
        "channel_id": uow.channel.channel_id,
        "kind": kind.value,
        "trigger": trigger.value,
        "actor_id": uow.actor.user_id if uow.actor else None,
        "occurred_at": uow.clock.now(),
        "processed_at": None,
    }
    if len(payloads) == 1:  # one item changed, as most changes are
        ((item_id, payload),) = payloads.items()
        await uow.execute(_INSERT, {**same, "id": new_id(), "item_id": item_id, "payload": payload})
        return
    ids = new_ids(len(payloads))  # many (a bulk edit)
    rows = [
        {"id": event_id, "item_id": item_id, "payload": payload}
        for event_id, (item_id, payload) in zip(ids, payloads.items(), strict=True)
    ]
    await uow.insert_many(_EVENTS, rows, same)

"""Pending events: written in the change's own transaction, consumed by the events engine later."""

from datetime import datetime
from functools import cache
from typing import Any, cast

from sqlalchemy import Table, insert

from bot.db import driver
from bot.db.tables import PendingEvent
from bot.ids import new_id
from bot.schemas import ItemKind
from bot.timestamps import format_timestamp
from bot.uow import UnitOfWork

ITEM_CREATED, ITEM_UPDATED, ITEM_DELETED = "ITEM_CREATED", "ITEM_UPDATED", "ITEM_DELETED"
_INSERT = driver.PreparedWrite(insert(cast(Table, PendingEvent.__table__)))


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


async def record(
    uow: UnitOfWork, *, kind: ItemKind, trigger: str, payloads: dict[str, dict[str, Any]]
) -> None:
    """One event per item (`payloads` maps item id to payload), in one statement."""
    if not payloads:
        return
    assert uow.channel is not None
    rows = [
        {
            "id": new_id(),
            "channel_id": uow.channel.channel_id,
            "kind": kind.value,
            "item_id": item_id,
            "trigger": trigger,
            "actor_id": uow.actor.user_id if uow.actor else None,
            "occurred_at": uow.clock.now(),
            "payload": payload,
            "processed_at": None,
        }
        for item_id, payload in payloads.items()
    ]
    if len(rows) == 1:  # one item changed, as most changes are: on the driver
        await _INSERT.run(uow.reads, rows[0])
    else:  # many (a bulk edit): one executemany through the session
        await uow.session.execute(_INSERT.statement, rows)

"""Pending events: written in the change's own transaction, consumed by the events engine later."""

from datetime import datetime
from functools import cache
from typing import Any, cast

import orjson
from sqlalchemy import JSON, String, Table, Text, bindparam, func, insert, null, select
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import ARRAY

from bot.db import driver
from bot.db.tables import PendingEvent
from bot.db.types import UTCDateTime
from bot.ids import new_id, new_ids
from bot.schemas import ItemKind
from bot.timestamps import format_timestamp
from bot.uow import UnitOfWork

ITEM_CREATED, ITEM_UPDATED, ITEM_DELETED = "ITEM_CREATED", "ITEM_UPDATED", "ITEM_DELETED"
_EVENTS = cast(Table, PendingEvent.__table__)
_INSERT = driver.PreparedWrite(insert(_EVENTS))
# PostgreSQL's many events: one INSERT of every row from three arrays. A statement per row, even
# sent together, ran the executor per row (1,000 events: 23-30 ms against 17-19 ms).
_ROWS = (
    func.unnest(
        bindparam("ids", type_=ARRAY(String())),
        bindparam("item_ids", type_=ARRAY(String())),
        bindparam("payloads", type_=ARRAY(Text())),
    )
    .table_valued("id", "item_id", "payload")
    .render_derived()
)
_INSERT_ROWS_POSTGRESQL = driver.PreparedWrite(
    insert(_EVENTS).from_select(
        [_EVENTS.c[name] for name in ("id", "channel_id", "kind", "item_id", "trigger")]
        + [_EVENTS.c[name] for name in ("actor_id", "occurred_at", "payload", "processed_at")],
        select(
            _ROWS.c.id,
            bindparam("event_channel", type_=String()),
            bindparam("event_kind", type_=String()),
            _ROWS.c.item_id,
            bindparam("event_trigger", type_=String()),
            bindparam("event_actor", type_=String()),
            bindparam("event_time", type_=UTCDateTime()),
            sql_cast(_ROWS.c.payload, JSON),
            null(),
        ),
    )
)


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
    uow: UnitOfWork, *, kind: ItemKind, trigger: str, payloads: dict[str, dict[str, Any]]
) -> None:
    """One event per item (`payloads` maps item id to payload), on the driver."""
    if not payloads:
        return
    assert uow.channel is not None
    same = {
        "channel_id": uow.channel.channel_id,
        "kind": kind.value,
        "trigger": trigger,
        "actor_id": uow.actor.user_id if uow.actor else None,
        "occurred_at": uow.clock.now(),
        "processed_at": None,
    }
    if len(payloads) == 1:  # one item changed, as most changes are
        ((item_id, payload),) = payloads.items()
        await _INSERT.run(
            uow.reads, {**same, "id": new_id(), "item_id": item_id, "payload": payload}
        )
        return
    # Many (a bulk edit).
    ids = new_ids(len(payloads))
    dialect, _connection = await uow.reads.connection()
    if dialect.name == "postgresql":
        values = {
            "ids": ids,
            "item_ids": list(payloads),
            "payloads": [orjson.dumps(payload).decode() for payload in payloads.values()],
            "event_channel": same["channel_id"],
            "event_kind": same["kind"],
            "event_trigger": same["trigger"],
            "event_actor": same["actor_id"],
            "event_time": same["occurred_at"],
        }
        await _INSERT_ROWS_POSTGRESQL.run(uow.reads, values)
        return
    # SQLite runs in the process: a statement per row costs it less than reading the rows out of
    # one JSON value would. Sent at once, what they share converted once.
    rows = [
        {"id": event_id, "item_id": item_id, "payload": payload}
        for event_id, (item_id, payload) in zip(ids, payloads.items(), strict=True)
    ]
    await _INSERT.run_many(uow.reads, rows, same)

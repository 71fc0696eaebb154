"""Deliveries as the engine makes them: one row per (event, rule), its request fixed, made once
however often the event is processed."""

import hashlib
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table

from bot.db.statements import Row
from bot.db.tables import EventDelivery
from bot.db.uow import UnitOfWork
from bot.db.upserts import insert_unless_present
from bot.events.pump import Event
from bot.events.schemas import DeliveryState
from bot.ids import new_ids

# Delivery rows per INSERT: 13 values each stay well under both databases' 32,766 parameters.
CHUNK = 500
_DELIVERIES = cast(Table, EventDelivery.__table__)


def webhook_id(event_id: str, definition_id: str) -> str:
    """The delivery's `webhook-id`: the same for one event and rule, however often sent."""
    digest = hashlib.blake2b(f"{event_id}:{definition_id}".encode(), digest_size=12)
    return f"msg_{digest.hexdigest()}"


async def make(uow: UnitOfWork, made: Sequence[tuple[Event, Row, dict[str, Any]]]) -> list[Row]:
    """A pending delivery per (event, rule, request); the ids of those made now (an event
    processed before made its deliveries then, and makes none again)."""
    now = uow.clock.now()
    rows = [
        {
            "id": delivery_id,
            "definition_id": rule["id"],
            "channel_id": event.channel_id,
            "event_id": event.id,
            "item_id": event.item_id,
            "trigger": event.trigger,
            "webhook_id": webhook_id(event.id, rule["id"]),
            "request": request,
            "state": DeliveryState.PENDING.value,
            "attempts": 0,
            "created_at": now,
            "last_attempt_at": None,
            "finished_at": None,
        }
        for (event, rule, request), delivery_id in zip(made, new_ids(len(made)), strict=True)
    ]
    kept: list[Row] = []
    for start in range(0, len(rows), CHUNK):
        kept += await uow.execute(
            insert_unless_present(_DELIVERIES, key=["event_id", "definition_id"])
            .values(rows[start : start + CHUNK])
            .returning(_DELIVERIES.c.id)
        )
    return kept

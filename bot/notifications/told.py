"""A Notification rule's deliveries end when the thread (or the channel's digest) told their
change: their log then says when, and a failure says why."""

from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, insert, select, update

from bot.db.expressions import one_of
from bot.db.statements import Prepared
from bot.db.tables import DeliveryAttempt, EventDefinition, EventDelivery
from bot.db.uow import UnitOfWork
from bot.events.deliveries.service import MAX_ERROR_LENGTH
from bot.events.schemas import ActionType, DeliveryState
from bot.ids import new_ids

_INSERT_ATTEMPT = Prepared(insert(cast(Table, DeliveryAttempt.__table__)))


async def succeeded(uow: UnitOfWork, *, event_ids: Sequence[str], item_id: str | None) -> None:
    await _end(uow, event_ids, item_id, DeliveryState.SUCCEEDED, None)


async def failed(
    uow: UnitOfWork, *, event_ids: Sequence[str], item_id: str | None, error: str
) -> None:
    await _end(uow, event_ids, item_id, DeliveryState.FAILED, error[:MAX_ERROR_LENGTH])


async def _end(
    uow: UnitOfWork,
    event_ids: Sequence[str],
    item_id: str | None,
    state: DeliveryState,
    error: str | None,
) -> None:
    """End the pending Notification deliveries of these changes, with one try each."""
    if not event_ids:
        return
    notifying = select(EventDefinition.id).where(
        EventDefinition.action_type == ActionType.NOTIFICATION.value
    )
    statement = select(EventDelivery.id).where(
        one_of(EventDelivery.event_id, event_ids),
        EventDelivery.state == DeliveryState.PENDING.value,
        EventDelivery.definition_id.in_(notifying.scalar_subquery()),
    )
    if item_id is not None:
        statement = statement.where(EventDelivery.item_id == item_id)
    ids = list(await uow.values(statement))
    if not ids:
        return
    now = uow.clock.now()
    await uow.execute(
        update(EventDelivery)
        .where(one_of(EventDelivery.id, ids))
        .values(
            state=state.value,
            attempts=EventDelivery.attempts + 1,
            last_attempt_at=now,
            finished_at=now,
        )
    )
    outcome = "succeeded" if state is DeliveryState.SUCCEEDED else "failed"
    await uow.execute_many(
        _INSERT_ATTEMPT,
        [
            {
                "id": attempt_id,
                "delivery_id": delivery_id,
                "at": now,
                "outcome": outcome,
                "latency_ms": None,
                "response_code": None,
                "error": error,
            }
            for attempt_id, delivery_id in zip(new_ids(len(ids)), ids, strict=True)
        ],
    )

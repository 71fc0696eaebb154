"""A Notification rule's deliveries end when the thread (or the channel's digest) told their
change: their log then says when, and a failure says why; one held or retried says what it
waits for."""

import logging
from collections.abc import Sequence
from datetime import timedelta
from typing import cast

from sqlalchemy import Table, func, insert, or_, select, update

from bot import outcomes
from bot.db.expressions import one_of
from bot.db.statements import Prepared
from bot.db.tables import Channel, DeliveryAttempt, EventDefinition, EventDelivery
from bot.db.uow import UnitOfWork
from bot.events.deliveries.service import MAX_ERROR_LENGTH
from bot.events.schemas import ActionType, DeliveryState
from bot.ids import new_ids
from bot.messaging import Messenger, NotificationsFailing

log = logging.getLogger(__name__)

_NOTIFYING = select(EventDefinition.id).where(
    EventDefinition.action_type == ActionType.NOTIFICATION.value
)
# A channel is told its notifications keep failing after this many failures within a day.
FAILING_AFTER = 3
FAILING_WINDOW = timedelta(days=1)
_INSERT_ATTEMPT = Prepared(insert(cast(Table, DeliveryAttempt.__table__)))


async def succeeded(uow: UnitOfWork, *, event_ids: Sequence[str], item_id: str | None) -> None:
    await _end(uow, event_ids, item_id, DeliveryState.SUCCEEDED, None)


async def failed(
    uow: UnitOfWork,
    teams: Messenger,
    *,
    event_ids: Sequence[str],
    item_id: str | None,
    error: str,
) -> None:
    """End them failed; a channel whose notifications keep failing is told so, once a day."""
    channels = await _end(uow, event_ids, item_id, DeliveryState.FAILED, error[:MAX_ERROR_LENGTH])
    for channel_id in channels:
        await _tell_if_failing(uow, teams, channel_id=channel_id, error=error)


async def waiting(
    uow: UnitOfWork, *, event_ids: Sequence[str], item_id: str | None, why: str
) -> None:
    """Have the log of these changes' pending Notification deliveries say what they wait for."""
    if not event_ids:
        return
    statement = (
        update(EventDelivery)
        .where(
            one_of(EventDelivery.event_id, event_ids),
            EventDelivery.state == DeliveryState.PENDING.value,
            EventDelivery.definition_id.in_(_NOTIFYING.scalar_subquery()),
        )
        .values(waiting_for=why[:MAX_ERROR_LENGTH])
    )
    if item_id is not None:
        statement = statement.where(EventDelivery.item_id == item_id)
    await uow.execute(statement)


async def _tell_if_failing(
    uow: UnitOfWork, teams: Messenger, *, channel_id: str, error: str
) -> None:
    now = uow.clock.now()
    since = now - FAILING_WINDOW
    failures = await uow.value(
        select(func.count())
        .select_from(EventDelivery)
        .where(
            EventDelivery.channel_id == channel_id,
            EventDelivery.state == DeliveryState.FAILED.value,
            EventDelivery.finished_at >= since,
            EventDelivery.definition_id.in_(_NOTIFYING.scalar_subquery()),
        )
    )
    if failures < FAILING_AFTER:
        return
    told = await uow.execute(
        update(Channel)
        .where(
            Channel.id == channel_id,
            or_(Channel.notify_failing_told_at.is_(None), Channel.notify_failing_told_at < since),
        )
        .values(notify_failing_told_at=now)
        .returning(Channel.teams_id)
    )
    if told:
        said = NotificationsFailing(failures=failures, error=error)
        await teams.post(uow, channel_id=told[0]["teams_id"], said=said)


async def _end(
    uow: UnitOfWork,
    event_ids: Sequence[str],
    item_id: str | None,
    state: DeliveryState,
    error: str | None,
) -> set[str]:
    """End the pending Notification deliveries of these changes, with one try each; their
    channels."""
    if not event_ids:
        return set()
    statement = select(EventDelivery.id, EventDelivery.channel_id).where(
        one_of(EventDelivery.event_id, event_ids),
        EventDelivery.state == DeliveryState.PENDING.value,
        EventDelivery.definition_id.in_(_NOTIFYING.scalar_subquery()),
    )
    if item_id is not None:
        statement = statement.where(EventDelivery.item_id == item_id)
    rows = await uow.rows(statement)
    if not rows:
        return set()
    ids = [row["id"] for row in rows]
    now = uow.clock.now()
    await uow.execute(
        update(EventDelivery)
        .where(one_of(EventDelivery.id, ids))
        .values(
            state=state.value,
            attempts=EventDelivery.attempts + 1,
            last_attempt_at=now,
            finished_at=now,
            waiting_for=None,
        )
    )
    outcome = "succeeded" if state is DeliveryState.SUCCEEDED else "failed"
    outcomes.notification(outcome, len(ids))
    said = "notification delivery" if len(ids) == 1 else "notification deliveries"
    if error is None:
        log.info("%d %s %s", len(ids), said, outcome)
    else:
        log.warning("%d %s %s: %s", len(ids), said, outcome, error)
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
    return {row["channel_id"] for row in rows}

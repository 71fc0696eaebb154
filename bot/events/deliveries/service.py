"""The delivery log: what the sender reads before a try and records after it, switching a rule
off (announced once in its channel), the list the API shows, resend, and pruning.

A delivery's tries are a chain of `events.deliver` jobs, each naming how many tries the
delivery had before it (`attempt`): a try is recorded only if that still holds, so a job that
runs twice (its process died before settling it) records nothing the second time, and each
retry is queued in the same transaction that records the try before it. Reads and records come
in batches (`bot.jobs.batches`): the tries running at once share their statements.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, exists, func, insert, select, update
from sqlalchemy.orm import aliased

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared, Row
from bot.db.tables import Channel, DeliveryAttempt, EventDefinition, EventDelivery
from bot.db.types import UTCDateTime
from bot.db.uow import UnitOfWork
from bot.errors import Conflict, NotFound
from bot.events import service as definitions
from bot.events.deliveries.deliver_job import DELIVER, TryDelivery
from bot.events.deliveries.policy import Outcome
from bot.events.schemas import ActionType, DeliveryState
from bot.ids import is_id, new_id
from bot.messaging import Messenger, RuleSwitchedOff
from bot.odata.query import Query, apply, count_statement, page

KEPT = timedelta(days=30)  # the log's age limit
MAX_ERROR_LENGTH = 1000


@dataclass(frozen=True, slots=True)
class Pending:
    """A delivery about to be tried, with what signing and switching off need of its rule."""

    id: str
    definition_id: str
    definition_name: str
    enabled: bool
    channel_teams_id: str
    webhook_id: str
    trigger: str
    request: dict[str, Any]
    state: str
    attempts: int
    secret: str
    previous_secret: str | None
    previous_secret_until: datetime | None

    def secrets(self, now: datetime) -> list[str]:
        """The secrets that sign now: the current one, and a rotated-out one until it expires."""
        until = self.previous_secret_until
        if self.previous_secret and until is not None and now < until:
            return [self.secret, self.previous_secret]
        return [self.secret]


@dataclass(frozen=True, slots=True)
class Try:
    """One try as the log records it."""

    at: datetime
    outcome: Outcome
    latency_ms: int | None = None
    response_code: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Made:
    """A try to record: of `pending`, after `expected` tries, in a series begun after
    `series_start`; the next try at `retry_at`, if any."""

    pending: Pending
    expected: int
    attempt: Try
    series_start: int = 0
    retry_at: datetime | None = None


_PENDING = Prepared(
    select(
        EventDelivery.id,
        EventDelivery.definition_id,
        EventDefinition.name.label("definition_name"),
        EventDefinition.enabled,
        Channel.teams_id.label("channel_teams_id"),
        EventDelivery.webhook_id,
        EventDelivery.trigger,
        EventDelivery.request,
        EventDelivery.state,
        EventDelivery.attempts,
        EventDefinition.secret,
        EventDefinition.previous_secret,
        EventDefinition.previous_secret_until,
    )
    .join_from(EventDelivery, EventDefinition, EventDefinition.id == EventDelivery.definition_id)
    .join(Channel, Channel.id == EventDelivery.channel_id)
    .where(one_of_named(EventDelivery.id, "ids"))
)
# Their rows locked while the batch checks each still has the tries its job was queued after.
_CURRENT = Prepared(
    select(EventDelivery.id, EventDelivery.attempts, EventDelivery.state)
    .where(one_of_named(EventDelivery.id, "ids"))
    .with_for_update()
)
_RECORDED = Prepared(
    update(EventDelivery)
    .where(EventDelivery.id == bindparam("delivery_id"))
    .values(
        attempts=EventDelivery.attempts + 1,
        last_attempt_at=bindparam("at", type_=UTCDateTime()),
        state=bindparam("state"),
        finished_at=bindparam("finished_at", type_=UTCDateTime()),
    )
)
_ATTEMPT = Prepared(insert(DeliveryAttempt))
_SWITCHED_OFF = Prepared(
    update(EventDefinition)
    .where(EventDefinition.id == bindparam("id"), EventDefinition.enabled)
    .values(
        enabled=False,
        disabled_reason=bindparam("reason"),
        disabled_announced_at=bindparam("now", type_=UTCDateTime()),
        updated_at=bindparam("now", type_=UTCDateTime()),
    )
    .returning(EventDefinition.name)
)
_failed, _success = aliased(EventDelivery), aliased(EventDelivery)
# The oldest failed delivery of the rule that no success came after.
_FAILING_SINCE = Prepared(
    select(func.min(_failed.created_at)).where(
        _failed.definition_id == bindparam("id"),
        _failed.state == DeliveryState.FAILED.value,
        ~exists().where(
            _success.definition_id == _failed.definition_id,
            _success.state == DeliveryState.SUCCEEDED.value,
            _success.finished_at >= _failed.created_at,
        ),
    )
)
_ATTEMPTS_OF = Prepared(
    select(DeliveryAttempt)
    .where(one_of_named(DeliveryAttempt.delivery_id, "ids"))
    .order_by(DeliveryAttempt.at.desc(), DeliveryAttempt.id.desc())
)
_PRUNED = Prepared(
    delete(EventDelivery).where(
        EventDelivery.state != DeliveryState.PENDING.value,
        func.coalesce(EventDelivery.finished_at, EventDelivery.created_at)
        < bindparam("before", type_=UTCDateTime()),
    )
)


async def to_send(uow: UnitOfWork, *, delivery_ids: list[str]) -> dict[str, Pending]:
    """The deliveries with their rules' state and secrets, by id; one gone (its rule deleted)
    is missing."""
    rows = await uow.rows(_PENDING, {"ids": delivery_ids})
    return {row["id"]: Pending(**row) for row in rows}


async def record(uow: UnitOfWork, *, made: list[Made]) -> list[bool]:
    """Log each try and its delivery's new state (queueing its next try at `retry_at`); False
    for a try another run already recorded, of which nothing is written."""
    rows = await uow.rows(_CURRENT, {"ids": [entry.pending.id for entry in made]})
    current = {row["id"]: (row["attempts"], row["state"]) for row in rows}
    kept: list[Made] = []
    for entry in made:
        if current.get(entry.pending.id) == (entry.expected, DeliveryState.PENDING.value):
            current.pop(entry.pending.id)  # a second try of it in this batch is not recorded
            kept.append(entry)
    if kept:
        await uow.execute_many(_RECORDED, [_delivery_values(entry) for entry in kept])
        await uow.execute_many(_ATTEMPT, [_attempt_values(entry) for entry in kept])
    for entry in kept:
        if entry.retry_at is not None:
            await queue_try(
                uow,
                delivery_id=entry.pending.id,
                attempt=entry.expected + 1,
                series_start=entry.series_start,
                at=entry.retry_at,
            )
    return [any(entry is chosen for chosen in kept) for entry in made]


def _delivery_values(entry: Made) -> dict[str, Any]:
    attempt = entry.attempt
    state = {
        Outcome.SUCCEEDED: DeliveryState.SUCCEEDED,
        Outcome.RETRYING: DeliveryState.PENDING,
    }.get(attempt.outcome, DeliveryState.FAILED)
    finished = attempt.outcome is not Outcome.RETRYING
    return {
        "delivery_id": entry.pending.id,
        "at": attempt.at,
        "state": state.value,
        "finished_at": attempt.at if finished else None,
    }


def _attempt_values(entry: Made) -> dict[str, Any]:
    attempt = entry.attempt
    return {
        "id": new_id(),
        "delivery_id": entry.pending.id,
        "at": attempt.at,
        "outcome": attempt.outcome.value,
        "latency_ms": attempt.latency_ms,
        "response_code": attempt.response_code,
        "error": attempt.error[:MAX_ERROR_LENGTH] if attempt.error else None,
    }


async def queue_try(
    uow: UnitOfWork, *, delivery_id: str, attempt: int, series_start: int, at: datetime
) -> None:
    """Queue the delivery's try after `attempt` tries, of a series begun after `series_start`."""
    payload = TryDelivery(delivery_id=delivery_id, attempt=attempt, series_start=series_start)
    await DELIVER.enqueue(uow, payload, run_at=at)


async def failing_since(uow: UnitOfWork, *, definition_id: str) -> datetime | None:
    """Since when every delivery of the rule has failed (its oldest failure after its last
    success), or None when the latest that ended succeeded."""
    since: datetime | None = await uow.value(_FAILING_SINCE, {"id": definition_id})
    return since


async def switch_off(uow: UnitOfWork, teams: Messenger, *, pending: Pending, reason: str) -> bool:
    """Switch the rule off and tell its channel, once: False if it was already off."""
    now = uow.clock.now()
    switched = await uow.execute(
        _SWITCHED_OFF, {"id": pending.definition_id, "reason": reason, "now": now}
    )
    if not switched:
        return False
    said = RuleSwitchedOff(rule=pending.definition_name, reason=reason)
    await teams.post(uow, channel_id=pending.channel_teams_id, said=said)
    return True


async def list_deliveries(
    uow: UnitOfWork, *, definition_id: str, query: Query
) -> tuple[list[tuple[Row, list[Any]]], int | None, bool]:
    """A page of the rule's deliveries, each with its tries newest first; the exact count if
    asked, and whether more follow. Another channel's rule is a 404."""
    definition = await definitions.get_definition(uow, definition_id=definition_id)
    statement = select(EventDelivery).where(EventDelivery.definition_id == definition.id)
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    tries: dict[str, list[Any]] = {row.id: [] for row in rows}
    if rows:
        for attempt in await uow.rows(_ATTEMPTS_OF, {"ids": list(tries)}):
            tries[attempt["delivery_id"]].append(attempt)
    return [(row, tries[row.id]) for row in rows], count, more


async def resend(uow: UnitOfWork, *, definition_id: str, delivery_id: str) -> tuple[Row, list[Any]]:
    """Send a finished delivery again: a new series of tries of the same request, with the same
    `webhook-id` (the delivery and its tries so far). 409 while it is still being tried or
    while its rule is off."""
    definition = await definitions.get_definition(uow, definition_id=definition_id)
    delivery = None
    if is_id(delivery_id):
        delivery = await uow.row(
            select(EventDelivery)
            .where(EventDelivery.id == delivery_id, EventDelivery.definition_id == definition.id)
            .with_for_update()
        )
    if delivery is None:
        raise NotFound(f"Delivery '{delivery_id}' not found.")
    if delivery.state == DeliveryState.PENDING.value:
        raise Conflict(f"Delivery '{delivery_id}' is still being delivered.")
    if definition.action_type == ActionType.NOTIFICATION.value:
        raise Conflict("A notification is not sent again: its item's thread already says it.")
    if not definition.enabled:
        raise Conflict(f"Event definition '{definition.id}' is disabled: enable it to resend.")
    delivery["state"], delivery["finished_at"] = DeliveryState.PENDING.value, None
    await uow.execute(
        update(EventDelivery)
        .where(EventDelivery.id == delivery.id)
        .values(state=delivery.state, finished_at=None)
    )
    now = uow.clock.now()
    await queue_try(
        uow,
        delivery_id=delivery.id,
        attempt=delivery.attempts,
        series_start=delivery.attempts,
        at=now,
    )
    return delivery, await uow.rows(_ATTEMPTS_OF, {"ids": [delivery.id]})


async def prune(uow: UnitOfWork) -> None:
    """Forget deliveries (and their tries) that ended more than KEPT ago."""
    await uow.execute(_PRUNED, {"before": uow.clock.now() - KEPT})

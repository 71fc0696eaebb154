"""The due-date sweep: DUESOON and OVERDUE, as pending events the engine treats like any other.

A recurring job (`bot.jobs.recurring`). Each run finds, per trigger and in one statement, the
items that crossed the trigger's line since the last run: by time passing (the due date, less the
channel's due-soon window for DUESOON, fell between the last run and now) or by a change (an
item written since the last run whose due date is already past the line: created so, its due
date moved, reopened). It records each in `due_alerts` with the due date it fired for, then
writes the events from those rows; an alert already held for the same due date fires nothing, a
new due date re-arms it. Items in a Done status, and those of deleted channels, never fire.
DUESOON does not fire for an item already overdue (a run after downtime sends OVERDUE alone).

The last run's time is kept in the job's row, so windows missed while no process ran fire once
at the next run. Runs are one at a time: the job row is locked for the run (PostgreSQL).
"""

from datetime import datetime, timedelta
from typing import Annotated, Any, cast

from pydantic import AfterValidator, PlainSerializer
from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    Table,
    and_,
    bindparam,
    exists,
    func,
    insert,
    literal,
    select,
    true,
    union,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.expressions import json_object, minutes_after, random_hex
from bot.db.statements import Prepared
from bot.db.tables import Channel, DueAlert, FieldValue, Item, Job, PendingEvent
from bot.db.types import UTCDateTime, timestamp_text
from bot.db.uow import UnitOfWork, unit_of_work
from bot.db.upserts import upsert_from_select
from bot.ids import new_id
from bot.jobs import recurring, wakeups
from bot.jobs.kinds import JobKind, Payload
from bot.jobs.queue import ClaimedJob
from bot.schemas import Trigger
from bot.timestamps import as_utc, format_timestamp


class Swept(Payload):
    """The sweep's state, kept in its row: the time up to which it has swept."""

    swept_until: Annotated[datetime, AfterValidator(as_utc), PlainSerializer(format_timestamp)]


KIND = JobKind("events.due_sweep", Swept)
# How far back a run also looks at items written since the last run: a change committed after
# the last run began but stamped before it is still seen (the alerts keep it from firing twice).
CHANGE_MARGIN = timedelta(minutes=10)

_NOW = bindparam("now", type_=UTCDateTime())
_LAST = bindparam("last", type_=UTCDateTime())
_CHANGED_SINCE = bindparam("changed_since", type_=UTCDateTime())
_DEFAULT_WINDOW = bindparam("default_minutes", type_=Integer())
_KINDS = ("bug", "task")
_ITEM = cast(Table, Item.__table__).c
_ALERT = cast(Table, DueAlert.__table__).c


def _crossing(trigger: Trigger) -> Any:
    """The items that crossed `trigger`'s line since the last run and hold no alert for their
    due date: (item id, due date), one statement, each half an index range per channel."""
    window = func.coalesce(Channel.due_soon_minutes, _DEFAULT_WINDOW)
    due_soon = trigger is Trigger.DUESOON
    line: ColumnElement[Any] = minutes_after(_NOW, window) if due_soon else _NOW
    since: ColumnElement[Any] = minutes_after(_LAST, window) if due_soon else _LAST
    done = exists().where(FieldValue.id == Item.status_id, FieldValue.category == "Done")
    alerted = exists().where(
        DueAlert.item_id == Item.id,
        DueAlert.trigger == trigger.value,
        DueAlert.due_date == Item.due_date,
    )

    def half(crossed: ColumnElement[bool], due: ColumnElement[Any]) -> Any:
        still_due = [due > _NOW] if due_soon else []
        return (
            select(Item.id, Item.due_date)
            .join_from(Channel, Item, Item.channel_id == Channel.id)
            .where(
                Channel.deleted_at.is_(None),
                Item.kind.in_(_KINDS),  # each (channel, kind) an index range
                crossed,
                due <= line,
                *still_due,
                ~done,
                ~alerted,
            )
        )

    by_time = half(Item.due_date > since, _ITEM.due_date)
    # The due date read through a function, so the planner ranges over the index on updated_at
    # (the few items written since the last run), not every item already past the line.
    unindexed_due = func.coalesce(Item.due_date, Item.due_date)
    by_change = half(
        and_(Item.updated_at > _CHANGED_SINCE, Item.due_date.is_not(None)), unindexed_due
    )
    return union(by_time, by_change).subquery()


def _alerts(trigger: Trigger) -> Prepared:
    crossing = _crossing(trigger)
    # SQLite reads ON CONFLICT after INSERT … SELECT only past a WHERE.
    run = bindparam("run_id", type_=String())
    name = literal(trigger.value)
    rows = select(crossing.c.id, name, crossing.c.due_date, _NOW, run).where(true())
    table = cast(Table, DueAlert.__table__)
    columns = ["item_id", "trigger", "due_date", "fired_at", "run_id"]
    return Prepared(upsert_from_select(table, columns, rows, key=["item_id", "trigger"]))


def _events(trigger: Trigger) -> Prepared:
    """The events of the alerts this run fired, shaped as `bot.pending_events` writes them."""
    rows: Any = (
        select(
            bindparam("id_prefix", type_=String()) + random_hex(_ITEM.id),
            Item.channel_id,
            Item.kind,
            Item.id,
            literal(trigger.value),
            literal(None),
            _NOW,
            json_object("dueDate", timestamp_text(_ALERT.due_date)),
            literal(None),
        )
        .join_from(DueAlert, Item, Item.id == DueAlert.item_id)
        .where(DueAlert.run_id == bindparam("run_id"), DueAlert.trigger == trigger.value)
    )
    columns = [
        "id",
        "channel_id",
        "kind",
        "item_id",
        "trigger",
        "actor_id",
        "occurred_at",
        "payload",
        "processed_at",
    ]
    return Prepared(insert(PendingEvent).from_select(columns, rows))


_STEPS = [(_alerts(t), _events(t)) for t in (Trigger.OVERDUE, Trigger.DUESOON)]
_JOB_ID = recurring.recurring_id(KIND.name)
_LOCK = Prepared(select(Job.payload).where(Job.id == _JOB_ID).with_for_update())
_SWEPT = Prepared(update(Job).where(Job.id == _JOB_ID).values(payload=bindparam("payload")))


async def ensure_job(uow: UnitOfWork) -> None:
    """The sweep's recurring row; a new one counts as having swept up to now."""
    now = uow.clock.now()
    await recurring.ensure(uow, kind=KIND, payload=Swept(swept_until=now), first_run=now)


async def sweep(uow: UnitOfWork, *, default_window: timedelta) -> None:
    """One run: fire what crossed a line since the last run, and remember this run."""
    await ensure_job(uow)
    (stored,) = await uow.values(_LOCK)  # PostgreSQL: a second run waits here for the first
    now = uow.clock.now()
    last = min(KIND.read(stored).swept_until, now)
    values = {
        "now": now,
        "last": last,
        "changed_since": last - CHANGE_MARGIN,
        "default_minutes": int(default_window.total_seconds() // 60),
        "id_prefix": f"{int(now.timestamp()) & 0xFFFFFFFF:08x}",
        "run_id": new_id(),
    }
    for alerts, events in _STEPS:
        await uow.execute(alerts, values)
        await uow.execute(events, values)
    await uow.execute(_SWEPT, {"payload": KIND.stored(Swept(swept_until=now))})
    uow.on_commit(wakeups.ring)


class DueSweep:
    """The sweep as the worker runs it (`handle`), or as tests run it (`run_once`)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        default_window: timedelta,
    ) -> None:
        self._sessions, self._clock = sessions, clock
        self.default_window = default_window

    async def install(self) -> None:
        async with unit_of_work(self._sessions, self._clock) as uow:
            await ensure_job(uow)

    async def run_once(self) -> None:
        async with unit_of_work(self._sessions, self._clock) as uow:
            await sweep(uow, default_window=self.default_window)

    async def handle(self, _job: ClaimedJob[Swept]) -> None:
        await self.run_once()

"""How much a channel's notifications may say, and when: its digest window and threshold (the
installation's where it sets none) and its quiet hours, read for many channels at once.

Quiet hours are read off the zone's clocks: they begin at the first instant of a day at which
the clocks read `start` or later, and end at the first instant at which they read `end` or later
(the next day when `end` comes first). So a time the clocks skip (spring forward) begins or ends
them at the jump, and a time they read twice (fall back) at its first reading, with no second
round of quiet when the clocks go back over it.
"""

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from bot.db.expressions import one_of
from bot.db.statements import Row
from bot.db.tables import Channel
from bot.db.uow import UnitOfWork
from bot.directory.schemas import QuietHours
from bot.settings import Settings

_DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Noise:
    """A channel's noise settings, the installation's filled in."""

    window: timedelta  # digest window; timedelta(0): no digests
    threshold: int  # items told one by one within the window; more become one digest
    quiet: QuietHours | None

    def quiet_until(self, at: datetime) -> datetime | None:
        """The end of the quiet hours (aware UTC) when `at` (aware) falls in them, else None."""
        if self.quiet is None:
            return None
        zone = ZoneInfo(self.quiet.time_zone)
        start, end = time.fromisoformat(self.quiet.start), time.fromisoformat(self.quiet.end)
        today = at.astimezone(zone).date()
        # Only the quiet hours begun yesterday (overnight) or today can hold `at`.
        for day in (today - _DAY, today):
            begins = _first_reading(day, start, zone)
            ends = _first_reading(day + _DAY if end < start else day, end, zone)
            if begins <= at < ends:
                return ends
        return None


async def read_noise(
    uow: UnitOfWork, channel_ids: Collection[str], *, settings: Settings
) -> dict[str, Noise]:
    """The noise settings of the channels (internal ids) that exist, by id: one query."""
    rows = await uow.rows(
        select(
            Channel.id, Channel.digest_window_seconds, Channel.digest_threshold, Channel.quiet_hours
        ).where(one_of(Channel.id, channel_ids))
    )
    return {row.id: _noise(row, settings) for row in rows}


def _noise(row: Row, settings: Settings) -> Noise:
    window, threshold = row.digest_window_seconds, row.digest_threshold
    return Noise(
        window=timedelta(seconds=settings.notify_digest_seconds if window is None else window),
        threshold=settings.notify_digest_threshold if threshold is None else threshold,
        # Checked when saved, so it reads back as it was written.
        quiet=None if row.quiet_hours is None else QuietHours.model_validate(row.quiet_hours),
    )


def _first_reading(day: date, wall: time, zone: ZoneInfo) -> datetime:
    """The first instant of `day` at which the zone's clocks read `wall` or later (aware UTC)."""
    naive = datetime.combine(day, wall)
    first = naive.replace(tzinfo=zone).astimezone(UTC)  # fold 0: the earlier of two readings
    if first.astimezone(zone).replace(tzinfo=None) == naive:
        return first
    # The clocks skip `wall`: they jump at an instant between its two interpretations, found by
    # halving (to the second: zones change offsets on whole seconds).
    before = int(naive.replace(tzinfo=zone, fold=1).timestamp())  # with the offset after it
    after = int(first.timestamp())  # with the offset before it
    while after - before > 1:
        middle = (before + after) // 2
        reads = datetime.fromtimestamp(middle, zone).replace(tzinfo=None)
        before, after = (before, middle) if reads >= naive else (middle, after)
    return datetime.fromtimestamp(after, UTC)

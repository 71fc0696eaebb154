"""A channel's noise settings: quiet hours read off the zone's clocks (a table of instants,
overnight and same-day, across the changes of Europe/Paris and America/New_York in 2026), and
the settings of many channels read at once, the installation's filling the gaps."""

from datetime import UTC, datetime, timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select

from bot.db.tables import Channel
from bot.directory.schemas import QuietHours
from bot.discussions.noise import Noise, read_noise
from bot.settings import Settings
from tests.factories import CHANNEL, Factory

PARIS, NEW_YORK = "Europe/Paris", "America/New_York"


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# (start, end, zone, at in UTC, the end of the quiet hours in UTC or None); the local reading
# of each instant in the comment. Paris is UTC+1 (CET) in winter and UTC+2 (CEST) in summer;
# New York UTC-5 (EST) and UTC-4 (EDT).
CASES = [
    # Overnight, a winter night in Paris.
    ("22:00", "07:00", PARIS, "2026-01-15 20:59:59", None),  # 21:59:59
    ("22:00", "07:00", PARIS, "2026-01-15 21:00", "2026-01-16 06:00"),  # 22:00: start counts
    ("22:00", "07:00", PARIS, "2026-01-15 23:30", "2026-01-16 06:00"),  # 00:30 the next day
    ("22:00", "07:00", PARIS, "2026-01-16 05:59:59", "2026-01-16 06:00"),  # 06:59:59
    ("22:00", "07:00", PARIS, "2026-01-16 06:00", None),  # 07:00: end does not
    ("22:00", "07:00", PARIS, "2026-01-15 12:00", None),  # 13:00
    # Same day, a summer day in Paris.
    ("09:00", "17:30", PARIS, "2026-07-01 06:59", None),  # 08:59
    ("09:00", "17:30", PARIS, "2026-07-01 07:00", "2026-07-01 15:30"),  # 09:00
    ("09:00", "17:30", PARIS, "2026-07-01 15:29:59", "2026-07-01 15:30"),  # 17:29:59
    ("09:00", "17:30", PARIS, "2026-07-01 15:30", None),  # 17:30
    ("09:00", "17:30", PARIS, "2026-07-01 22:30", None),  # 00:30 on 2 July
    # One minute, over midnight.
    ("23:59", "00:00", "UTC", "2026-05-05 23:58:59", None),
    ("23:59", "00:00", "UTC", "2026-05-05 23:59:30", "2026-05-06 00:00"),
    ("23:59", "00:00", "UTC", "2026-05-06 00:00", None),
    # Paris springs forward on 29 March 2026 at 01:00 UTC: 02:00 CET becomes 03:00 CEST, and
    # no clock reads 02:30. Quiet hours ending then end at the jump...
    ("22:00", "02:30", PARIS, "2026-03-28 21:00", "2026-03-29 01:00"),  # 22:00 CET
    ("22:00", "02:30", PARIS, "2026-03-29 00:59:59", "2026-03-29 01:00"),  # 01:59:59 CET
    ("22:00", "02:30", PARIS, "2026-03-29 01:00", None),  # 03:00 CEST
    ("22:00", "02:30", PARIS, "2026-03-29 01:30", None),  # 03:30 CEST
    # ... and those beginning then begin at it.
    ("02:30", "06:00", PARIS, "2026-03-29 00:59:59", None),  # 01:59:59 CET
    ("02:30", "06:00", PARIS, "2026-03-29 01:00", "2026-03-29 04:00"),  # 03:00 CEST
    # A night across the change ends at 07:00 summer time.
    ("22:00", "07:00", PARIS, "2026-03-29 04:59", "2026-03-29 05:00"),  # 06:59 CEST
    ("22:00", "07:00", PARIS, "2026-03-29 05:00", None),  # 07:00 CEST
    # Paris falls back on 25 October 2026 at 01:00 UTC: 03:00 CEST becomes 02:00 CET, and the
    # clocks read 02:30 twice (00:30 and 01:30 UTC). Quiet hours end at the first reading, and
    # the second does not start them again...
    ("22:00", "02:30", PARIS, "2026-10-24 20:00", "2026-10-25 00:30"),  # 22:00 CEST
    ("22:00", "02:30", PARIS, "2026-10-25 00:29", "2026-10-25 00:30"),  # 02:29 CEST
    ("22:00", "02:30", PARIS, "2026-10-25 00:30", None),  # 02:30 CEST
    ("22:00", "02:30", PARIS, "2026-10-25 01:10", None),  # 02:10 CET, the hour again
    # ... and quiet hours beginning at 02:30 begin at the first reading and hold through both.
    ("02:30", "06:00", PARIS, "2026-10-25 00:29", None),  # 02:29 CEST
    ("02:30", "06:00", PARIS, "2026-10-25 00:30", "2026-10-25 05:00"),  # 02:30 CEST
    ("02:30", "06:00", PARIS, "2026-10-25 01:10", "2026-10-25 05:00"),  # 02:10 CET
    # A night across the change ends at 07:00 winter time: an hour longer.
    ("22:00", "07:00", PARIS, "2026-10-25 05:59", "2026-10-25 06:00"),  # 06:59 CET
    # New York springs forward on 8 March 2026 at 07:00 UTC: 02:00 EST becomes 03:00 EDT.
    ("02:30", "08:00", NEW_YORK, "2026-03-08 06:59", None),  # 01:59 EST
    ("02:30", "08:00", NEW_YORK, "2026-03-08 07:00", "2026-03-08 12:00"),  # 03:00 EDT
    ("23:00", "02:30", NEW_YORK, "2026-03-08 04:00", "2026-03-08 07:00"),  # 23:00 EST, 7 March
    ("23:00", "02:30", NEW_YORK, "2026-03-08 07:00", None),  # 03:00 EDT
    # New York falls back on 1 November 2026 at 06:00 UTC: 02:00 EDT becomes 01:00 EST; the
    # clocks read 01:30 twice (05:30 and 06:30 UTC).
    ("22:00", "01:30", NEW_YORK, "2026-11-01 02:00", "2026-11-01 05:30"),  # 22:00 EDT, 31 Oct
    ("22:00", "01:30", NEW_YORK, "2026-11-01 05:30", None),  # 01:30 EDT
    ("22:00", "01:30", NEW_YORK, "2026-11-01 06:10", None),  # 01:10 EST, the hour again
    ("22:00", "01:30", NEW_YORK, "2026-11-01 06:30", None),  # 01:30 EST
    ("01:30", "03:00", NEW_YORK, "2026-11-01 05:29", None),  # 01:29 EDT
    ("01:30", "03:00", NEW_YORK, "2026-11-01 05:30", "2026-11-01 08:00"),  # 01:30 EDT
    ("01:30", "03:00", NEW_YORK, "2026-11-01 06:45", "2026-11-01 08:00"),  # 01:45 EST
    ("01:30", "03:00", NEW_YORK, "2026-11-01 07:59:59", "2026-11-01 08:00"),  # 02:59:59 EST
    ("01:30", "03:00", NEW_YORK, "2026-11-01 08:00", None),  # 03:00 EST
]


def quiet(start: str, end: str, zone: str) -> Noise:
    hours = QuietHours.model_validate({"start": start, "end": end, "timeZone": zone})
    return Noise(window=timedelta(seconds=5), threshold=5, quiet=hours)


@pytest.mark.parametrize(
    ("start", "end", "zone", "at", "until"),
    CASES,
    ids=[f"{start}-{end} {zone} at {at}Z" for start, end, zone, at, _ in CASES],
)
def test_quiet_until(start: str, end: str, zone: str, at: str, until: str | None) -> None:
    ends = quiet(start, end, zone).quiet_until(utc(at))
    assert ends == (utc(until) if until else None)
    assert ends is None or ends.utcoffset() == timedelta(0)


def test_an_instant_in_another_offset_is_the_same_instant() -> None:
    at = datetime.fromisoformat("2026-01-15T23:30:00+02:00")  # 22:30 in Paris
    assert quiet("22:00", "07:00", PARIS).quiet_until(at) == utc("2026-01-16 06:00")


def test_without_quiet_hours_nothing_waits() -> None:
    noise = Noise(window=timedelta(0), threshold=5, quiet=None)
    assert noise.quiet_until(utc("2026-01-15 23:00")) is None


async def channel_ids(factory: Factory) -> dict[str, str]:
    """Internal ids by Teams id."""
    async with factory.work(write=False) as uow:
        return {
            row.teams_id: row.id for row in await uow.rows(select(Channel.id, Channel.teams_id))
        }


async def test_many_channels_are_read_at_once_the_installation_filling_the_gaps(
    client: TestClient, factory: Factory, settings: Settings
) -> None:
    ada = await factory.member()
    await factory.channel("19:quiet@thread.tacv2", name="Quiet")
    own = {
        "digestWindowSeconds": 0,
        "digestThreshold": 40,
        "quietHours": {"start": "22:00", "end": "07:00", "timeZone": PARIS},
    }
    response = await client.patch("/api/channel/settings", json=own, headers=ada.in_channel())
    assert response.status == 200, await response.text()
    ids = await channel_ids(factory)

    async with factory.work(write=False) as uow:
        noise = await read_noise(uow, [*ids.values(), "0" * 24], settings=settings)

    assert set(noise) == set(ids.values())  # a channel that does not exist is left out
    mine, other = noise[ids[CHANNEL]], noise[ids["19:quiet@thread.tacv2"]]
    assert (mine.window, mine.threshold) == (timedelta(0), 40)
    assert mine.quiet_until(utc("2026-01-15 21:00")) == utc("2026-01-16 06:00")
    assert other == Noise(
        window=timedelta(seconds=settings.notify_digest_seconds),
        threshold=settings.notify_digest_threshold,
        quiet=None,
    )

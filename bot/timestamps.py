"""The API's timestamps: ISO 8601 in UTC with milliseconds and a Z out; ISO 8601's extended
format in, read by the one parser every body field, card form and filter uses."""

import re
from datetime import UTC, datetime, timedelta

_UTC_OFFSET = timedelta(0)

# A date, or a date and time (seconds and their fraction optional) with an optional Z or ±hh:mm.
# fromisoformat alone also reads the basic format (20261201), and pydantic reads numbers and
# digit strings as Unix seconds: both stored wrong dates without a word (docs/api.md refuses them).
_EXTENDED_FORMAT = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?"
)
NOT_A_TIMESTAMP = (
    "must be an ISO 8601 date or date-time in the extended format "
    "(2026-12-01, 2026-12-01T09:30:00Z, 2026-12-01T09:30:00+02:00)"
)


def parse_timestamp(text: str) -> datetime:
    """An ISO 8601 extended-format date or date-time as aware UTC: no offset means UTC, a bare
    date midnight UTC. ValueError, with a message a user can act on, for anything else."""
    # RFC 3339 allows a lowercase t and z.
    if not _EXTENDED_FORMAT.fullmatch(text.upper()):
        raise ValueError(NOT_A_TIMESTAMP)
    try:
        parsed = datetime.fromisoformat(text.upper())
    except ValueError:  # the right shape, but no such day or time (2026-02-30, 25:00)
        raise ValueError(NOT_A_TIMESTAMP) from None
    return as_utc(parsed)


def as_utc(value: datetime) -> datetime:
    """No offset means UTC (docs/api.md, Conventions)."""
    try:
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except OverflowError:
        # 0001-01-01T00:00+01:00 is before year 1 in UTC.
        raise ValueError("is outside the years 1 to 9999 in UTC") from None


def format_timestamp(value: datetime) -> str:
    """`2026-11-22T09:30:00.000Z` for any aware datetime."""
    if value.utcoffset() != _UTC_OFFSET:
        value = value.astimezone(UTC)
    # isoformat, not strftime: glibc's %Y writes year 235 as "235", which is no ISO 8601 date.
    # Its first 23 characters are the date and time to the millisecond; the offset is dropped.
    return value.isoformat(timespec="milliseconds")[:23] + "Z"

"""The API's one timestamp format: ISO 8601 in UTC with milliseconds and a Z."""

from datetime import UTC, datetime, timedelta

_UTC_OFFSET = timedelta(0)


def format_timestamp(value: datetime) -> str:
    """`2026-11-22T09:30:00.000Z` for any aware datetime."""
    if value.utcoffset() != _UTC_OFFSET:
        value = value.astimezone(UTC)
    # isoformat, not strftime: glibc's %Y writes year 235 as "235", which is no ISO 8601 date.
    # Its first 23 characters are the date and time to the millisecond; the offset is dropped.
    return value.isoformat(timespec="milliseconds")[:23] + "Z"

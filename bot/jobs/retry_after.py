"""`Retry-After` as a delay: the answer of a throttled receiver (Teams, a webhook) to a retry."""

from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime


def retry_after(value: str | None, *, now: datetime, cap: timedelta) -> timedelta | None:
    """Retry-After in seconds or as an HTTP date, at most `cap`; None when absent or unreadable."""
    if not value:
        return None
    if value.strip().isdigit():
        return min(timedelta(seconds=int(value)), cap)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return min(max(when - now, timedelta(0)), cap)

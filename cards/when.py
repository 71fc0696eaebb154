"""When something happened, as a person says it: "5 min ago", "yesterday", "on 2026-11-21"."""

from datetime import datetime, timedelta

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
WEEK = timedelta(days=7)


def ago(then: datetime, now: datetime | None) -> str:
    """`then` relative to `now`; the date alone without a clock (a card nobody refreshes) or
    beyond a week, where "23 days ago" reads worse than the date."""
    since = now - then if now is not None else None
    if since is None or since >= WEEK:
        return f"on {then.date().isoformat()}"
    if since < MINUTE:  # also a clock a little behind the database's
        return "just now"
    if since < HOUR:
        return f"{since // MINUTE} min ago"
    if since < DAY:
        return f"{since // HOUR} h ago"
    days = since // DAY
    return "yesterday" if days == 1 else f"{days} days ago"

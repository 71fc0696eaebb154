"""The refresh job's kind: queued by the coalescer when an item's burst opens, run by the
thread refresher (`bot.discussions.refresh`). Declared here, the one module both import: the
refresher reschedules through the coalescer."""

from bot.jobs.kinds import JobKind, Payload


class RefreshThread(Payload):
    item_id: str  # the item whose burst the job tells (its `thread_refreshes` row)


# An outage delays a refresh, never drops it: with backoff capped at an hour, days of retries.
REFRESH = JobKind("discussions.refresh", RefreshThread, max_attempts=200)

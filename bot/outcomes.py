"""What background work ended in, counted for /metrics: webhook delivery tries, notification
deliveries, Bot Connector calls, job runs, synced changes.

The counters belong to one app's registry (`bot.web.metrics`), so two apps in one process (the
tests) count apart. Where an outcome is recorded, often a module-level service function that
takes only the unit of work, one line counts it for the app whose request or job runs there:
the access middleware and the jobs worker bind the app's `Outcomes` around each request and job
(`bound`). Outside any (a script, a unit test of a service), nothing is counted.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from prometheus_client import CollectorRegistry, Counter, Histogram

# A job's run, from a few milliseconds (a card update) to a webhook's 30 s timeout.
JOB_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Outcomes:
    """The counters, registered in `registry`."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.deliveries = Counter(
            "tracker_webhook_deliveries",
            "Webhook delivery tries by outcome: succeeded, retrying (tried again later), "
            "failed (given up), stopped (the rule was switched off)",
            ["outcome"],
            registry=registry,
        )
        self.notifications = Counter(
            "tracker_notification_deliveries",
            "Notification rules' deliveries ended, by outcome: succeeded or failed",
            ["outcome"],
            registry=registry,
        )
        self.bot_sends = Counter(
            "tracker_bot_sends",
            "Bot Connector calls by outcome: sent; throttled (429, 412, 502, 504: retried after "
            "Retry-After); unreachable and error (retried with backoff); refused (another 4xx: "
            "given up)",
            ["outcome"],
            registry=registry,
        )
        self.job_runs = Counter(
            "tracker_job_runs",
            "Background job runs by kind and outcome: done, retry, put_off, failed, error, "
            "cancelled",
            ["kind", "outcome"],
            registry=registry,
        )
        self.sync_changes = Counter(
            "sync_changes",
            "Synced items' changes by direction (in: from the source; out: to it) and result: "
            "imported (the first import), applied, conflict (a field changed on both sides), "
            "refused (the source refused it), failed (tried again later)",
            ["direction", "result"],
            registry=registry,
        )
        self.job_seconds = Histogram(
            "tracker_job_run_duration_seconds",
            "How long background job runs took, by kind",
            ["kind"],
            buckets=JOB_SECONDS,
            registry=registry,
        )


_current: ContextVar[Outcomes | None] = ContextVar("outcomes", default=None)


@contextmanager
def bound(outcomes: Outcomes | None) -> Iterator[None]:
    """Count what the block (and the tasks it starts) records in `outcomes`."""
    token = _current.set(outcomes)
    try:
        yield
    finally:
        _current.reset(token)


def delivery(outcome: str) -> None:
    counted = _current.get()
    if counted is not None:
        counted.deliveries.labels(outcome).inc()


def notification(outcome: str, count: int = 1) -> None:
    counted = _current.get()
    if counted is not None:
        counted.notifications.labels(outcome).inc(count)


def bot_send(outcome: str) -> None:
    counted = _current.get()
    if counted is not None:
        counted.bot_sends.labels(outcome).inc()


def sync_change(direction: str, result: str, count: int = 1) -> None:
    counted = _current.get()
    if counted is not None and count:
        counted.sync_changes.labels(direction, result).inc(count)

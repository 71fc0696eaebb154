"""GET /metrics in the Prometheus text format: what the app counted (`bot.web.metrics`), and
what is read at scrape time: the database pool, the jobs backlog by kind (one grouped
statement), the oldest unprocessed pending event, the sync's pending changes and lag, the
worker's last turn. With METRICS_TOKEN
set, a scrape must send `Authorization: Bearer <token>`. Not part of the JSON API, so not in
/openapi.json.
"""

import hmac
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from aiohttp import web
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.registry import Collector
from sqlalchemy.pool import QueuePool

from bot.db.failures import DATABASE_ERRORS
from bot.db.uow import unit_of_work
from bot.errors import QueryTooLong, Unauthorized
from bot.events import pump
from bot.jobs import queue
from bot.keys import CLOCK, ENGINE, SESSIONS, SETTINGS, WORKER
from bot.sync.backlog import SyncBacklog
from bot.sync.backlog import backlog as sync_backlog
from bot.web.keys import METRICS
from bot.web.metrics import Metrics

log = logging.getLogger(__name__)

PATH = "/metrics"
UNAUTHORIZED = "Metrics need `Authorization: Bearer <METRICS_TOKEN>`."


def install(app: web.Application) -> None:
    app[METRICS] = Metrics()
    app.router.add_get(PATH, metrics_page)


async def metrics_page(request: web.Request) -> web.Response:
    app = request.app
    token = app[SETTINGS].metrics_token
    if token is not None:
        sent = request.headers.get("Authorization", "").encode()
        if not hmac.compare_digest(sent, f"Bearer {token.get_secret_value()}".encode()):
            raise Unauthorized(UNAUTHORIZED)
    scraped = await _scrape(app)
    body = generate_latest(app[METRICS].registry) + generate_latest(scraped)
    return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_PLAIN_0_0_4})


@dataclass
class _Scraped(Collector):
    """What is read when scraped: the pool, the backlogs, the worker."""

    database_up: bool = False
    pool: dict[str, int] = field(default_factory=dict)
    jobs: list[queue.Backlog] = field(default_factory=list)
    now: float = 0.0
    oldest_event: float | None = None
    last_turn: float | None = None
    sync: SyncBacklog | None = None

    def collect(self) -> Iterable[Metric]:
        yield GaugeMetricFamily(
            "tracker_database_up",
            "Whether the scrape's reads of the database succeeded",
            value=int(self.database_up),
        )
        for name, value in self.pool.items():
            yield GaugeMetricFamily(f"tracker_db_pool_{name}", _POOL[name], value=value)
        due = GaugeMetricFamily(
            "tracker_jobs_due", "Due jobs no worker holds, by kind", labels=["kind"]
        )
        age = GaugeMetricFamily(
            "tracker_jobs_oldest_due_age_seconds",
            "How long the oldest due job no worker holds has waited, by kind",
            labels=["kind"],
        )
        for backlog in self.jobs:
            due.add_metric([backlog.kind], backlog.due)
            age.add_metric([backlog.kind], self.now - backlog.oldest_run_at.timestamp())
        yield due
        yield age
        if self.database_up:
            yield GaugeMetricFamily(
                "tracker_events_oldest_pending_age_seconds",
                "How old the oldest change not yet processed is (0: none waits)",
                value=0.0 if self.oldest_event is None else self.now - self.oldest_event,
            )
        if self.sync is not None:
            yield GaugeMetricFamily(
                "sync_pending",
                "Changes made here waiting to go out to the source (projects whose sync is on): "
                "items changed, and comments made, edited or deleted",
                value=self.sync.pending,
            )
            oldest = self.sync.oldest_pull
            yield GaugeMetricFamily(
                "sync_lag_seconds",
                "How long ago the least recently pulled syncing project last read its source "
                "(0: none reads)",
                value=0.0 if oldest is None else max(self.now - oldest.timestamp(), 0.0),
            )
        if self.last_turn is not None:
            yield GaugeMetricFamily(
                "tracker_jobs_worker_last_turn_age_seconds",
                "How long ago this process's jobs worker began its last turn",
                value=self.now - self.last_turn,
            )


_POOL = {
    "size": "Connections the database pool keeps",
    "checked_out": "Pooled database connections in use now",
    "overflow": "Connections open beyond the pool's size now",
}


async def _scrape(app: web.Application) -> _Scraped:
    now = app[CLOCK].now()
    scraped = _Scraped(now=now.timestamp())
    pool = app[ENGINE].pool
    if isinstance(pool, QueuePool):
        scraped.pool = {
            "size": pool.size(),
            "checked_out": pool.checkedout(),
            "overflow": max(pool.overflow(), 0),  # negative while the pool is still filling
        }
    if app[SETTINGS].jobs_poll_seconds > 0:
        scraped.last_turn = app[WORKER].last_turn_at.timestamp()
    try:
        async with unit_of_work(app[SESSIONS], app[CLOCK], write=False) as uow:
            scraped.jobs = await queue.backlog(uow)
            oldest = await pump.oldest_unprocessed(uow)
            sync = await sync_backlog(uow)
    except (*DATABASE_ERRORS, QueryTooLong) as exc:
        # The counters are worth serving most when the database is not.
        log.warning("metrics: the database could not be read: %s", type(exc).__name__)
        return scraped
    scraped.database_up = True
    scraped.oldest_event = None if oldest is None else oldest.timestamp()
    scraped.sync = sync
    return scraped

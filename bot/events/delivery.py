"""The `events.deliver` job: one signed try of one webhook delivery, its outcome logged.

The engine writes a delivery (its request fixed) and a job naming it; this sends it through the
SSRF guard (`ssrf.client_connector`), signs it with the rule's secrets, never follows a
redirect, and records the try (`deliveries.service`). A network error, 408, 429 or 5xx queues
the next try on the Standard Webhooks schedule (`deliveries.policy`); anything else ends it; a
410 switches the rule off, and so do five days of nothing but failures. A try never waits long
for a busy receiver: past its host's share of sends in flight it is put off and runs again a
moment later, so one receiver that hangs cannot hold the sends to the others.
"""

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import aiohttp
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from yarl import URL

from bot.clock import Clock
from bot.db.uow import UnitOfWork, unit_of_work
from bot.events import ssrf
from bot.events.deliveries import service
from bot.events.deliveries.policy import (
    FAILING_FOR,
    GONE,
    Answer,
    Outcome,
    judge,
    next_wait,
)
from bot.events.deliveries.service import DELIVER, Pending, Try
from bot.events.deliveries.signing import headers as signed_headers
from bot.jobs import recurring
from bot.jobs.queue import ClaimedJob
from bot.jobs.retry_after import retry_after
from bot.jobs.worker import NotNow, Worker
from bot.settings import Settings

__all__ = ["DELIVER", "PRUNE", "Deliverer"]

log = logging.getLogger(__name__)

PRUNE = "events.prune_deliveries"
PRUNE_EVERY = timedelta(hours=1)
# How long a try waits for a slot of its receiver before it is put off, and by how much.
SLOT_WAIT = 1.0
PUT_OFF = (1.0, 3.0)
BODY_SHOWN = 200  # bytes of a failed answer kept in the log's error


class Busy(Exception):
    """No slot for this receiver now."""


class Caps:
    """Sends in flight in this process: at most `total`, and `per_host` to one host."""

    def __init__(self, *, total: int, per_host: int) -> None:
        self._total = asyncio.Semaphore(total)
        self._per_host = per_host
        self._hosts: dict[str, tuple[asyncio.Semaphore, int]] = {}

    @asynccontextmanager
    async def slot(self, host: str) -> AsyncIterator[None]:
        """Hold a slot of `host` and of the total, waiting SLOT_WAIT at most (Busy)."""
        semaphore, users = self._hosts.get(host) or (asyncio.Semaphore(self._per_host), 0)
        self._hosts[host] = (semaphore, users + 1)
        try:
            await self._take(semaphore)
            try:
                await self._take(self._total)
                try:
                    yield
                finally:
                    self._total.release()
            finally:
                semaphore.release()
        finally:
            semaphore, users = self._hosts[host]
            if users == 1:
                del self._hosts[host]
            else:
                self._hosts[host] = (semaphore, users - 1)

    @staticmethod
    async def _take(semaphore: asyncio.Semaphore) -> None:
        try:
            async with asyncio.timeout(SLOT_WAIT):
                await semaphore.acquire()
        except TimeoutError:
            raise Busy() from None


class Deliverer:
    """Sends deliveries for the jobs worker; `opened()` holds its HTTP client."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self._sessions, self._clock, self._settings = sessions, clock, settings
        self._rng = rng or random.Random()
        self.caps = Caps(total=settings.webhook_concurrency, per_host=settings.webhook_per_host)
        self._http: aiohttp.ClientSession | None = None

    @asynccontextmanager
    async def opened(self) -> AsyncIterator["Deliverer"]:
        """The HTTP client every try goes through, and the pruning job's row."""
        settings = self._settings
        connector = ssrf.client_connector(
            ssrf.AllowList.parse(settings.webhook_allowed_hosts),
            limit=settings.webhook_concurrency,
            limit_per_host=settings.webhook_per_host,
        )
        timeout = aiohttp.ClientTimeout(total=settings.webhook_timeout_seconds)
        async with unit_of_work(self._sessions, self._clock) as uow:
            first = uow.clock.now() + PRUNE_EVERY
            await recurring.ensure(uow, kind=PRUNE, payload={}, first_run=first)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
            self._http = http
            try:
                yield self
            finally:
                self._http = None

    def register(self, worker: Worker) -> None:
        worker.register(DELIVER, self.handle)
        worker.register_recurring(PRUNE, self.prune, every=PRUNE_EVERY)

    async def prune(self, _job: ClaimedJob | None = None) -> None:
        """Forget deliveries that ended more than 30 days ago."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            await service.prune(uow)

    async def handle(self, job: ClaimedJob) -> None:
        """One try of the job's delivery, unless another run already made it."""
        delivery_id = job.payload["deliveryId"]
        expected = int(job.payload.get("attempt", 0))
        series_start = int(job.payload.get("seriesStart", 0))
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            pending = await service.to_send(uow, delivery_id=delivery_id)
        if pending is None:
            log.info("delivery %s: gone (its rule was deleted); not sent", delivery_id)
            return
        if pending.state != "pending" or pending.attempts != expected:
            log.info("delivery %s: try %s was already made", delivery_id, expected + 1)
            return
        if not pending.enabled:
            stopped = Try(self._clock.now(), Outcome.STOPPED, error="The rule was switched off.")
            async with unit_of_work(self._sessions, self._clock) as uow:
                await service.record(
                    uow, pending=pending, expected=expected, attempt=stopped, series_start=0
                )
            return
        at = self._clock.now()
        try:
            async with self.caps.slot(URL(pending.request["url"]).host or ""):
                answer, latency_ms = await self._send(pending)
        except Busy:
            put_off = timedelta(seconds=self._rng.uniform(*PUT_OFF))
            raise NotNow("its receiver has every slot busy", after=put_off) from None
        tries = expected - series_start + 1
        outcome = judge(answer, tries_in_series=tries)
        attempt = Try(at, outcome, latency_ms, answer.code, answer.error)
        async with unit_of_work(self._sessions, self._clock) as uow:
            retry_at = None
            if outcome is Outcome.RETRYING:
                wait = next_wait(answer, tries_in_series=tries, rng=self._rng)
                retry_at = uow.clock.now() + wait
            recorded = await service.record(
                uow,
                pending=pending,
                expected=expected,
                attempt=attempt,
                series_start=series_start,
                retry_at=retry_at,
            )
            if recorded and answer.code == GONE:
                reason = f"The receiver answered 410 Gone on {at:%Y-%m-%d %H:%M} UTC: switched off."
                await service.switch_off(uow, pending=pending, reason=reason)
            elif recorded and outcome is Outcome.FAILED:
                await self._off_after_failing(uow, pending)

    async def _off_after_failing(self, uow: UnitOfWork, pending: Pending) -> None:
        since = await service.failing_since(uow, definition_id=pending.definition_id)
        if since is not None and since <= uow.clock.now() - FAILING_FOR:
            reason = (
                f"Every delivery since {since:%Y-%m-%d %H:%M} UTC failed ({FAILING_FOR.days} days "
                "of failures): switched off."
            )
            await service.switch_off(uow, pending=pending, reason=reason)

    async def _send(self, pending: Pending) -> tuple[Answer, int]:
        """The request as the engine fixed it, signed now; what came back and how long it took."""
        assert self._http is not None, "Deliverer.opened() holds the HTTP client"
        request, now = pending.request, self._clock.now()
        body = request.get("body") or ""
        headers = signed_headers(
            request.get("headers") or [],
            secrets=pending.secrets(now),
            webhook_id=pending.webhook_id,
            trigger=pending.trigger,
            at=now,
            body=body,
        )
        started = time.monotonic()
        try:
            async with self._http.request(
                request.get("method", "POST"),
                request["url"],
                data=body.encode(),
                headers=headers,
                allow_redirects=False,
            ) as response:
                shown = await response.content.read(BODY_SHOWN)
                answer = self._answer(response, shown)
        except ssrf.DestinationRefused as exc:
            answer = Answer(None, f"Refused at send: {exc.message}")
        except TimeoutError:
            timeout = self._settings.webhook_timeout_seconds
            answer = Answer(None, f"No answer within {timeout:g} s", retryable=True)
        except (aiohttp.ClientError, OSError) as exc:
            answer = Answer(None, f"{type(exc).__name__}: {exc}", retryable=True)
        return answer, round((time.monotonic() - started) * 1000)

    def _answer(self, response: aiohttp.ClientResponse, shown: bytes) -> Answer:
        code = response.status
        if 200 <= code < 300:
            return Answer(code, None)
        error = f"HTTP {code} {response.reason or ''}".rstrip()
        if 300 <= code < 400:
            location = response.headers.get("Location", "")
            error += f" (redirects are not followed) to {location}".rstrip()
        elif shown:
            error += ": " + shown.decode("utf-8", "replace")
        later = retry_after(
            response.headers.get("Retry-After"), now=self._clock.now(), cap=timedelta(days=1)
        )
        return Answer(code, error, retry_after=later)

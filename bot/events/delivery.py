"""The `events.deliver` job: one signed try of one webhook delivery, its outcome logged.

The engine writes a delivery (its request fixed) and a job naming it; this sends it through the
SSRF guard (`ssrf.client_connector`), signs it with the rule's secrets, never follows a
redirect, and records the try (`deliveries.service`). A network error, 408, 429 or 5xx queues
the next try on the Standard Webhooks schedule (`deliveries.policy`); anything else ends it; a
410 switches the rule off, and so do five days of nothing but failures. A try waits its turn
for a receiver that answers briskly, but one for a stalled receiver is put off and runs again a
moment later (`deliveries.caps`), so one receiver that hangs cannot hold the sends to others.
A try's delivery is read in the transaction that claims its job, with the others claimed then;
tries running at once share their records (`bot.jobs.batches`), and a try's record finishes its
job in the same transaction, in which the worker claims jobs for the slots the batch frees.
"""

import logging
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta

import aiohttp
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from yarl import URL

from bot import outcomes
from bot.clock import Clock
from bot.db.uow import UnitOfWork, unit_of_work
from bot.events import ssrf
from bot.events.deliveries import service
from bot.events.deliveries.caps import Busy, Caps
from bot.events.deliveries.deliver_job import DELIVER, TryDelivery
from bot.events.deliveries.policy import FAILING_FOR, GONE, Answer, Outcome, judge, next_wait
from bot.events.deliveries.service import Made, Pending, Try
from bot.events.deliveries.signing import headers as signed_headers
from bot.jobs import queue, recurring
from bot.jobs.batches import Batches
from bot.jobs.kinds import JobKind, NoPayload
from bot.jobs.queue import ClaimedJob
from bot.jobs.retry_after import retry_after
from bot.jobs.worker import SETTLED, NotNow, Worker
from bot.messaging import Messenger
from bot.settings import Settings

__all__ = ["DELIVER", "PRUNE", "Deliverer"]

log = logging.getLogger(__name__)

PRUNE = JobKind("events.prune_deliveries", NoPayload)
PRUNE_EVERY = timedelta(hours=1)
PUT_OFF = (1.0, 3.0)  # seconds a try waits when its receiver has no slot for it
BODY_SHOWN = 200  # bytes of a failed answer kept in the log's error
BATCH = 200  # tries read or recorded together at most


@dataclass(frozen=True, slots=True)
class _Read:
    """A try's delivery as read with its job's claim: None if gone (its rule was deleted)."""

    pending: Pending | None


class Deliverer:
    """Sends deliveries for the jobs worker; `opened()` holds its HTTP client."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
        teams: Messenger,
        *,
        rng: random.Random | None = None,
    ) -> None:
        self._sessions, self._clock, self._settings = sessions, clock, settings
        self._teams = teams  # tells a channel its rule was switched off
        self._rng = rng or random.Random()
        self.caps = Caps(total=settings.webhook_concurrency, per_host=settings.webhook_per_host)
        self._http: aiohttp.ClientSession | None = None
        self._worker: Worker | None = None  # whose jobs the records finish
        self._loads: Batches[str, Pending | None] = Batches(self._load, limit=BATCH)
        # A try's record: its job, whether the worker claimed it (its slot frees with the
        # record), and the try.
        self._records: Batches[tuple[str, bool, Made], None] = Batches(self._record, limit=BATCH)

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
            await recurring.ensure(uow, kind=PRUNE, payload=NoPayload(), first_run=first)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
            self._http = http
            try:
                yield self
            finally:
                await self._loads.close()
                await self._records.close()
                self._http = None

    def register(self, worker: Worker) -> None:
        self._worker = worker
        worker.register(DELIVER, self.handle, gave_up=self.given_up, read=self.read)
        worker.register_recurring(PRUNE, self.prune, every=PRUNE_EVERY)

    async def prune(self, _job: ClaimedJob[NoPayload] | None = None) -> None:
        """Forget deliveries that ended more than 30 days ago."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            await service.prune(uow)

    async def read(self, uow: UnitOfWork, jobs: list[ClaimedJob[TryDelivery]]) -> list[_Read]:
        """The deliveries of jobs being claimed, in the claim's transaction."""
        ids = [job.payload.delivery_id for job in jobs]
        found = await service.to_send(uow, delivery_ids=ids)
        return [_Read(found.get(delivery_id)) for delivery_id in ids]

    async def handle(self, job: ClaimedJob[TryDelivery]) -> str | None:
        """One try of the job's delivery, unless another run already made it; the job is
        finished with the try's record (SETTLED)."""
        delivery_id, expected = job.payload.delivery_id, job.payload.attempt
        claimed = isinstance(job.read, _Read)
        if claimed:
            pending = job.read.pending
        else:  # not claimed by a worker (run directly): read now
            pending = await self._loads.submit(delivery_id)
        if pending is None:
            log.info("delivery %s: gone (its rule was deleted); not sent", delivery_id)
            return None
        if pending.state != "pending" or pending.attempts != expected:
            log.info("delivery %s: try %s was already made", delivery_id, expected + 1)
            return None
        if not pending.enabled:
            stopped = Try(self._clock.now(), Outcome.STOPPED, error="The rule was switched off.")
            await self._records.submit((job.id, claimed, Made(pending, expected, stopped)))
            return SETTLED
        at = self._clock.now()
        try:
            async with self.caps.slot(URL(pending.request["url"]).host or ""):
                answer, latency_ms = await self._send(pending)
        except Busy:
            put_off = timedelta(seconds=self._rng.uniform(*PUT_OFF))
            raise NotNow("its receiver has every slot busy", after=put_off) from None
        series_start = job.payload.series_start
        tries = expected - series_start + 1
        outcome = judge(answer, tries_in_series=tries)
        retry_at = None
        if outcome is Outcome.RETRYING:
            retry_at = self._clock.now() + next_wait(answer, tries_in_series=tries, rng=self._rng)
        attempt = Try(at, outcome, latency_ms, answer.code, answer.error)
        await self._records.submit(
            (job.id, claimed, Made(pending, expected, attempt, series_start, retry_at))
        )
        return SETTLED

    async def given_up(self, uow: UnitOfWork, job: ClaimedJob[TryDelivery], error: str) -> None:
        """The worker gave the try's job up (its record kept failing, say): the delivery fails
        with the last error, logged and counted as any failed try."""
        delivery_id, expected = job.payload.delivery_id, job.payload.attempt
        pending = (await service.to_send(uow, delivery_ids=[delivery_id])).get(delivery_id)
        if pending is None:
            return
        failed = Try(uow.clock.now(), Outcome.FAILED, error=error)
        [kept] = await service.record(uow, made=[Made(pending, expected, failed)])
        if kept:
            log.warning("delivery %s failed: %s", delivery_id, error)
            outcomes.delivery(Outcome.FAILED.value)

    async def _load(self, delivery_ids: list[str]) -> list[Pending | None]:
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            found = await service.to_send(uow, delivery_ids=delivery_ids)
        return [found.get(delivery_id) for delivery_id in delivery_ids]

    async def _record(self, batch: list[tuple[str, bool, Made]]) -> list[None]:
        """The tries of a batch, what they call for (a rule switched off), and their jobs
        finished, in one transaction; in it too, the worker claims jobs for the slots the
        batch frees."""
        worker = self._worker
        assert worker is not None, "Deliverer.register(worker) names whose jobs these are"
        made = [entry for _, _, entry in batch]
        try:
            async with unit_of_work(self._sessions, self._clock) as uow:
                recorded = await service.record(uow, made=made)
                for entry, kept in zip(made, recorded, strict=True):
                    if kept:
                        await self._after(uow, entry)
                job_ids = [job_id for job_id, _, _ in batch]
                await queue.finish_many(uow, job_ids=job_ids, owner=worker.owner)
                ending = sum(claimed for _, claimed, _ in batch)
                await worker.claim_for_ending(uow, ending=ending)
        except Exception:
            worker.wake()  # its claim, if any, was rolled back with the records
            raise
        for entry, kept in zip(made, recorded, strict=True):
            if kept:  # counted once committed
                outcomes.delivery(entry.attempt.outcome.value)
        return [None] * len(batch)

    async def _after(self, uow: UnitOfWork, entry: Made) -> None:
        """A 410, or five days of nothing but failures, switches the rule off."""
        pending, attempt = entry.pending, entry.attempt
        if attempt.response_code == GONE:
            at = attempt.at
            reason = f"The receiver answered 410 Gone on {at:%Y-%m-%d %H:%M} UTC: switched off."
            await service.switch_off(uow, self._teams, pending=pending, reason=reason)
        elif attempt.outcome is Outcome.FAILED:
            since = await service.failing_since(uow, definition_id=pending.definition_id)
            if since is not None and since <= uow.clock.now() - FAILING_FOR:
                reason = (
                    f"Every delivery since {since:%Y-%m-%d %H:%M} UTC failed "
                    f"({FAILING_FOR.days} days of failures): switched off."
                )
                await service.switch_off(uow, self._teams, pending=pending, reason=reason)

    async def _send(self, pending: Pending) -> tuple[Answer, int]:
        """The request as the engine fixed it, signed now; what came back and how long it took."""
        assert self._http is not None, "Deliverer.opened() holds the HTTP client"
        request, now = pending.request, self._clock.now()
        body = request.get("body") or ""
        started = time.monotonic()
        try:
            headers = signed_headers(
                request.get("headers") or [],
                secrets=pending.secrets(now),
                webhook_id=pending.webhook_id,
                trigger=pending.trigger,
                at=now,
                body=body,
            )
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
        except (aiohttp.InvalidURL, ValueError, TypeError) as exc:
            # Refused before anything was sent (a header value with a control character saved
            # before such values were refused, say): no retry can change that.
            answer = Answer(None, f"The request cannot be sent: {type(exc).__name__}: {exc}")
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

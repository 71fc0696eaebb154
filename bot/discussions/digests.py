"""A channel's digest: the notifications held back while the channel was noisy or quiet, posted
as one card (`cards.digest`) when its time comes.

A refresh held by the gate adds its item's line here (`hold`) in the transaction that closes
its burst, opening the channel's digest and its one job when none is open. The job posts the
card, marks the lines it listed as posted by it (a short transaction of its own), then, in
another, forgets them and ends their notification deliveries; lines added meanwhile open the
next digest. A run that finds lines it marked records them without posting again, so only a
process dying between the post and the mark posts a digest twice. Every statement here holds
for any number of lines (no list of lines is written into the SQL).
"""

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from html import unescape
from typing import cast

from sqlalchemy import Table, bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.clock import Clock
from bot.db.statements import Prepared, Row
from bot.db.tables import Channel, ChannelDigest, DigestEntry
from bot.db.uow import UnitOfWork, unit_of_work
from bot.db.upserts import insert_or_update, insert_unless_present
from bot.discussions.noise import read_noise
from bot.events.deliveries import told
from bot.ids import new_id
from bot.jobs.kinds import JobKind, Payload
from bot.jobs.queue import ClaimedJob
from bot.jobs.worker import PermanentFailure, Worker
from bot.messaging import Digest, DigestLine, Messenger
from bot.schemas import ItemKind
from bot.settings import Settings

log = logging.getLogger(__name__)


class PostDigest(Payload):
    channel_id: str  # the channel's row id


# An outage delays a digest, never drops it (as a thread's refresh).
POST_DIGEST = JobKind("notifications.digest", PostDigest, max_attempts=200)
_TAG = re.compile(r"<[^>]*>")  # a line's markup: a digest lists its words as text
_DIGESTS = cast(Table, ChannelDigest.__table__)
_ENTRIES = cast(Table, DigestEntry.__table__)
_DIGEST = Prepared(select(_DIGESTS).where(_DIGESTS.c.channel_id == bindparam("channel")))
_LISTED = Prepared(
    select(_ENTRIES)
    .where(_ENTRIES.c.channel_id == bindparam("channel"))
    .order_by(_ENTRIES.c.created_at, _ENTRIES.c.item_id)
)
_CHANNEL = Prepared(select(Channel.teams_id).where(Channel.id == bindparam("channel")))
# A line as it was listed: one replaced since (a later change of its item) is not marked.
_MARK = Prepared(
    update(_ENTRIES)
    .where(
        _ENTRIES.c.channel_id == bindparam("channel"),
        _ENTRIES.c.item_id == bindparam("item"),
        _ENTRIES.c.created_at == bindparam("listed_at", type_=_ENTRIES.c.created_at.type),
    )
    .values(posted_job=bindparam("job"))
)
_FORGET = Prepared(
    delete(_ENTRIES)
    .where(_ENTRIES.c.channel_id == bindparam("channel"), _ENTRIES.c.posted_job == bindparam("job"))
    .returning(_ENTRIES.c.event_ids)
)


def summary(title: str, said: str | None) -> str:
    """An item's digest line: its root's title (HTML-escaped, as the API describes the root),
    then what the reply would have said (its HTML; None: nothing)."""
    title = unescape(title)
    words = unescape(_TAG.sub("", said)).strip() if said is not None else ""
    return ": ".join(part for part in (title, words) if part) or "An item changed"


async def hold(
    uow: UnitOfWork,
    *,
    channel_id: str,
    item_id: str,
    kind: ItemKind,
    summary: str,
    event_ids: list[str],
    due: datetime,
) -> None:
    """Add the item's line to the channel's digest (one line per item: a later one replaces
    its words and keeps its changes), opening the digest due at `due` when none is open."""
    now = uow.clock.now()
    kept = await uow.row(
        select(_ENTRIES.c.event_ids)
        .where(_ENTRIES.c.channel_id == channel_id, _ENTRIES.c.item_id == item_id)
        .with_for_update()
    )
    events = [*(kept["event_ids"] if kept else []), *event_ids]
    row = {
        "channel_id": channel_id,
        "item_id": item_id,
        "kind": kind.value,
        "summary": summary,
        "event_ids": events,
        "created_at": now,
        "posted_job": None,
    }
    await uow.execute(
        insert_or_update(
            _ENTRIES,
            key=["channel_id", "item_id"],
            update=lambda new: {
                "summary": new["summary"],
                "event_ids": new["event_ids"],
                "created_at": new["created_at"],
                "posted_job": None,  # a later digest tells its new words
            },
        ).values(row)
    )
    job_id = new_id()
    opened = await uow.execute(
        insert_unless_present(_DIGESTS, key=["channel_id"])
        .values(channel_id=channel_id, job_id=job_id, due_at=due)
        .returning(_DIGESTS.c.channel_id)
    )
    if opened:
        await _schedule(uow, channel_id=channel_id, job_id=job_id, due=due)
    else:  # an open digest: quiet hours may hold it longer
        await uow.execute(
            update(_DIGESTS)
            .where(_DIGESTS.c.channel_id == channel_id, _DIGESTS.c.due_at < due)
            .values(due_at=due)
        )


async def _mark(uow: UnitOfWork, channel_id: str, job_id: str, listed: Sequence[Row]) -> None:
    """Mark the lines as listed by the job: one statement run once per line."""
    await uow.execute_many(
        _MARK,
        [{"item": row["item_id"], "listed_at": row["created_at"]} for row in listed],
        {"channel": channel_id, "job": job_id},
    )


async def _schedule(uow: UnitOfWork, *, channel_id: str, job_id: str, due: datetime) -> None:
    await POST_DIGEST.enqueue_many(
        uow, [PostDigest(channel_id=channel_id)], run_at=[due], ids=[job_id]
    )


class Digester:
    """Posts channels' digests for the jobs worker."""

    def __init__(
        self,
        teams: Messenger,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        settings: Settings,
    ) -> None:
        self._teams, self._sessions, self._clock = teams, sessions, clock
        self._settings = settings

    def register(self, worker: Worker) -> None:
        worker.register(POST_DIGEST, self.run, gave_up=self.given_up)

    async def run(self, job: ClaimedJob[PostDigest]) -> None:
        channel_id = job.payload.channel_id
        async with unit_of_work(self._sessions, self._clock) as uow:
            digest = await uow.row(_DIGEST, {"channel": channel_id})
            if digest is None or digest["job_id"] != job.id:
                return  # posted already, or rescheduled under another job
            now = uow.clock.now()
            noise = (await read_noise(uow, [channel_id], settings=self._settings))[channel_id]
            quiet_until = noise.quiet_until(now)
            later = max(digest["due_at"], quiet_until or digest["due_at"])
            if later > now:  # held longer since it was scheduled
                await self._reschedule(uow, channel_id, later)
                return
            rows = await uow.rows(_LISTED, {"channel": channel_id})
            teams_channel = await uow.value(_CHANNEL, {"channel": channel_id})
        if any(row["posted_job"] == job.id for row in rows):
            # Teams took this job's card; recording it failed: record it, never post it again.
            await self._close(channel_id, job.id, [], error=None)
            return
        if not rows or teams_channel is None:
            await self._close(channel_id, job.id, rows, error=None)
            return
        lines = [DigestLine(row["summary"], ItemKind(row["kind"]), row["item_id"]) for row in rows]
        try:
            await self._teams.start(channel_id=teams_channel, said=Digest(lines, teams_channel))
        except PermanentFailure as exc:
            log.warning("digest of channel %s not posted: %s", channel_id, exc)
            await self._close(channel_id, job.id, rows, error=str(exc))
            raise
        async with unit_of_work(self._sessions, self._clock) as uow:
            await _mark(uow, channel_id, job.id, rows)
        await self._close(channel_id, job.id, [], error=None)

    async def _reschedule(self, uow: UnitOfWork, channel_id: str, due: datetime) -> None:
        job_id = new_id()
        await uow.execute(
            update(_DIGESTS)
            .where(_DIGESTS.c.channel_id == channel_id)
            .values(job_id=job_id, due_at=due)
        )
        await _schedule(uow, channel_id=channel_id, job_id=job_id, due=due)

    async def _close(
        self, channel_id: str, job_id: str, listed: Sequence[Row], *, error: str | None
    ) -> None:
        """Forget the lines this job posted or `listed` (a line replaced since stays), end
        their deliveries, and close the digest or open the next for lines that came
        meanwhile."""
        async with unit_of_work(self._sessions, self._clock) as uow:
            await self._closing(uow, channel_id, job_id, listed, error=error)

    async def given_up(self, uow: UnitOfWork, job: ClaimedJob[PostDigest], error: str) -> None:
        """The worker gave the digest's job up (days of throttling, say): its lines' notifications
        fail with the last error, and the channel's next digest can open."""
        channel_id = job.payload.channel_id
        digest = await uow.row(_DIGEST, {"channel": channel_id})
        if digest is None or digest["job_id"] != job.id:
            return
        listed = await uow.rows(_LISTED, {"channel": channel_id})
        await self._closing(uow, channel_id, job.id, listed, error=error)

    async def _closing(
        self,
        uow: UnitOfWork,
        channel_id: str,
        job_id: str,
        listed: Sequence[Row],
        *,
        error: str | None,
    ) -> None:
        """`_close` in the caller's transaction."""
        await _mark(uow, channel_id, job_id, listed)
        forgotten = await uow.execute(_FORGET, {"channel": channel_id, "job": job_id})
        event_ids = [event for row in forgotten for event in row["event_ids"]]
        if error is None:
            await told.succeeded(uow, event_ids=event_ids, item_id=None)
        else:
            await told.failed(uow, self._teams, event_ids=event_ids, item_id=None, error=error)
        remaining = await uow.value(
            select(_ENTRIES.c.item_id).where(_ENTRIES.c.channel_id == channel_id).limit(1)
        )
        if remaining is None:
            await uow.execute(
                delete(_DIGESTS).where(
                    _DIGESTS.c.channel_id == channel_id, _DIGESTS.c.job_id == job_id
                )
            )
            return
        noise = (await read_noise(uow, [channel_id], settings=self._settings))[channel_id]
        await self._reschedule(uow, channel_id, uow.clock.now() + noise.window)

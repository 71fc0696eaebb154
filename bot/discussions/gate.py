"""Whether an item's notification is posted now or held for the channel's digest.

Held while the channel is in its quiet hours (until they end), while a digest of the channel is
open (until it is posted), and when more than the channel's threshold of items would be told
within its digest window: the items with bursts open now plus those told in the last window.
"""

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, func, select

from bot.db.statements import Prepared
from bot.db.tables import ChannelDigest, Item, ThreadLine, ThreadRefresh
from bot.db.uow import UnitOfWork
from bot.discussions.noise import read_noise
from bot.settings import Settings

# One statement, so PostgreSQL reads all three in one snapshot: a burst closing into the digest
# between two reads would otherwise be seen neither open nor in the digest.
_NOISE_NOW = Prepared(
    select(
        select(ChannelDigest.due_at)
        .where(ChannelDigest.channel_id == bindparam("channel"))
        .scalar_subquery()
        .label("digest_due"),
        select(func.count())
        .where(ThreadRefresh.channel_id == bindparam("channel"), ThreadRefresh.job_id.is_not(None))
        .scalar_subquery()
        .label("open_bursts"),
        # the other items told within the window (the items' channel decides)
        select(func.count(func.distinct(ThreadLine.item_id)))
        .join(Item, Item.id == ThreadLine.item_id)
        .where(
            ThreadLine.told_at >= bindparam("since"),
            ThreadLine.reply_id.is_not(None),
            Item.channel_id == bindparam("channel"),
            ThreadLine.item_id != bindparam("item"),
        )
        .scalar_subquery()
        .label("told_lately"),
    )
)


QUIET = "the channel's quiet hours to end, then its digest"
OPEN_DIGEST = "the channel's digest, open already"
BUSY = "the channel's digest: more than {threshold} items were told within {seconds} s"


@dataclass(frozen=True, slots=True)
class Held:
    """A notification the channel's digest tells at `until`; `why`, as the delivery log says."""

    until: datetime
    why: str


async def held_until(
    uow: UnitOfWork, *, channel_id: str, item_id: str, settings: Settings
) -> Held | None:
    """When the channel's digest tells this item's notification, and why; None: post it now."""
    now = uow.clock.now()
    noise = (await read_noise(uow, [channel_id], settings=settings))[channel_id]
    counts = await uow.row(
        _NOISE_NOW, {"channel": channel_id, "item": item_id, "since": now - noise.window}
    )
    assert counts is not None  # a select of subqueries has one row
    digest_due: datetime | None = counts["digest_due"]
    quiet_until = noise.quiet_until(now)
    if quiet_until is not None:
        until = max(quiet_until, digest_due) if digest_due is not None else quiet_until
        return Held(until, QUIET)
    if digest_due is not None:
        return Held(digest_due, OPEN_DIGEST)
    if not noise.window or counts["open_bursts"] + counts["told_lately"] <= noise.threshold:
        return None
    seconds = int(noise.window.total_seconds())
    return Held(now + noise.window, BUSY.format(threshold=noise.threshold, seconds=seconds))

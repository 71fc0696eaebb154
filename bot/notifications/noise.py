"""A channel's noise settings (placeholder until the channel settings land)."""

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from bot.db.expressions import one_of
from bot.db.tables import Channel
from bot.db.uow import UnitOfWork
from bot.settings import Settings


@dataclass(frozen=True, slots=True)
class Noise:
    window: timedelta
    threshold: int
    quiet: Any | None

    def quiet_until(self, at: datetime) -> datetime | None:
        return None


async def read_noise(
    uow: UnitOfWork, channel_ids: Collection[str], *, settings: Settings
) -> dict[str, Noise]:
    rows = await uow.rows(
        select(Channel.id, Channel.digest_window_seconds, Channel.digest_threshold).where(
            one_of(Channel.id, channel_ids)
        )
    )
    return {
        row["id"]: Noise(
            timedelta(
                seconds=row["digest_window_seconds"]
                if row["digest_window_seconds"] is not None
                else settings.notify_digest_seconds
            ),
            row["digest_threshold"] or settings.notify_digest_threshold,
            None,
        )
        for row in rows
    }

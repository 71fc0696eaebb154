"""Background work: one row per job, claimed under a lease (bot.jobs)."""

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from bot.db.tables.base import ID, Base
from bot.db.types import UTCDateTime


class Job(Base):
    """A piece of work to run at `run_at`; a live lease means a worker is running it."""

    __tablename__ = "jobs"
    # Workers look for queued rows that are due, earliest first.
    __table_args__ = (Index(None, "state", "run_at"),)
    id: Mapped[str] = mapped_column(ID, primary_key=True)
    kind: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(8))  # queued | done | failed
    run_at: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int]
    max_attempts: Mapped[int]
    lease_owner: Mapped[str | None] = mapped_column(String(64))
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

"""What tests make a local source do wrong: fail the next requests, hold one until released,
and throttle to a budget of requests per window, noting any request that came back sooner
than the `Retry-After` it was given allowed."""

import asyncio
import math
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any


@dataclass(slots=True)
class Hang:
    """A request held by the stand-in: `arrived` is set when one is held; `release()` lets it
    go on to its ordinary answer."""

    after_change: bool = False
    path_part: str = ""  # held: the next request whose path holds this
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def release(self) -> None:
        self.released.set()


@dataclass(frozen=True, slots=True)
class Violation:
    """A request that arrived before the `Retry-After` given to an earlier one had passed."""

    method: str
    path: str
    at: datetime
    allowed_at: datetime


@dataclass(frozen=True, slots=True)
class Failure:
    status: int
    retry_after: int | None
    after_change: bool = False
    path_part: str = ""  # failed: the next request whose path holds this


def take(queued: "deque[Any]", path: str) -> Any:
    """The first fault queued for a request to `path` (taken off the queue), or None."""
    for fault in queued:
        if fault.path_part in path:
            queued.remove(fault)
            return fault
    return None


class Faults:
    def __init__(self) -> None:
        self.failures: deque[Failure] = deque()
        self.hangs: deque[Hang] = deque()
        self.held: list[Hang] = []
        self.budget: int | None = None
        self.window = timedelta(seconds=1)
        self.started: datetime | None = None
        self.per_window: dict[int, int] = {}
        self.violations: list[Violation] = []
        self.allowed_at: datetime | None = None

    def throttle_answer(self, method: str, path: str, now: datetime) -> int | None:
        """Count the request; the seconds to give in `Retry-After` when it is over budget."""
        if self.budget is None or self.started is None:
            return None
        if self.allowed_at is not None and now < self.allowed_at:
            self.violations.append(Violation(method, path, now, self.allowed_at))
        window = int((now - self.started) / self.window)
        self.per_window[window] = self.per_window.get(window, 0) + 1
        if self.per_window[window] <= self.budget:
            return None
        window_ends = self.started + self.window * (window + 1)
        seconds = max(1, math.ceil((window_ends - now).total_seconds()))
        allowed_at = now + timedelta(seconds=seconds)
        self.allowed_at = max(self.allowed_at or allowed_at, allowed_at)
        return seconds

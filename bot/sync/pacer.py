"""Pacing per source host: after a 429 or 503, nothing goes to that host before its
`Retry-After` has passed, whichever connector instance (project) asks. One per process."""

import random
from datetime import datetime, timedelta

from bot.clock import Clock

# When a throttled answer gives no Retry-After: this long, with jitter so processes spread out.
DEFAULT_WAIT = (5.0, 10.0)
LONGEST_WAIT = timedelta(hours=1)


class HostPacer:
    def __init__(self, *, rng: random.Random | None = None) -> None:
        self._until: dict[str, datetime] = {}
        self._rng = rng or random.Random()

    def hold(self, host: str, wait: timedelta | None, *, clock: Clock) -> timedelta:
        """Send nothing to `host` for `wait` (a jittered default when None); the wait kept."""
        if wait is None:
            wait = timedelta(seconds=self._rng.uniform(*DEFAULT_WAIT))
        until = clock.now() + min(wait, LONGEST_WAIT)
        if until > self._until.get(host, until - timedelta(1)):
            self._until[host] = until
        return self._until[host] - clock.now()

    def wait_left(self, host: str, *, clock: Clock) -> timedelta | None:
        """How long `host` must still be left alone, or None when it may be called now."""
        until = self._until.get(host)
        if until is None:
            return None
        left = until - clock.now()
        if left <= timedelta(0):
            del self._until[host]
            return None
        return left


PACER = HostPacer()

"""What an answer means for a delivery, and when the next try runs (the Standard Webhooks
schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h later)."""

import random
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

SCHEDULE = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=14),
    timedelta(hours=20),
    timedelta(hours=24),
)
TRIES = len(SCHEDULE)
# Each wait is stretched by up to this share, so receivers that failed together are not all
# called again in the same second.
JITTER = 0.1
# A Retry-After further away than the schedule's longest wait is not waited for longer.
MAX_RETRY_AFTER = SCHEDULE[-1]
# An answer that says "later": timeout, throttled; and every 5xx.
RETRIED_CODES = {408, 429}
GONE = 410
# A rule whose every delivery failed for this long is switched off (docs/api.md, Deliveries).
FAILING_FOR = timedelta(days=5)


class Outcome(StrEnum):
    """How one try ended, as the delivery log lists it."""

    SUCCEEDED = "succeeded"
    RETRYING = "retrying"  # failed; another try is scheduled
    FAILED = "failed"  # failed; no try follows
    STOPPED = "stopped"  # not sent: the rule was switched off before this try


@dataclass(frozen=True, slots=True)
class Answer:
    """What one try got: a response code, or an error before any."""

    code: int | None
    error: str | None
    retry_after: timedelta | None = None
    retryable: bool = False  # for an error without a response: a network error or timeout


def judge(answer: Answer, *, tries_in_series: int) -> Outcome:
    """The outcome of try number `tries_in_series` (1 for the first of its series)."""
    code = answer.code
    if code is not None and 200 <= code < 300:
        return Outcome.SUCCEEDED
    if code is None:
        retry = answer.retryable
    else:
        retry = code in RETRIED_CODES or code >= 500
    return Outcome.RETRYING if retry and tries_in_series < TRIES else Outcome.FAILED


def next_wait(answer: Answer, *, tries_in_series: int, rng: random.Random) -> timedelta:
    """How long after try `tries_in_series` the next runs: the schedule's wait with jitter, or
    the receiver's Retry-After when that is longer."""
    scheduled = SCHEDULE[tries_in_series] * (1 + rng.random() * JITTER)
    if answer.retry_after is not None:
        return max(scheduled, min(answer.retry_after, MAX_RETRY_AFTER))
    return scheduled

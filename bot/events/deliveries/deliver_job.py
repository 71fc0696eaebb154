"""The `events.deliver` job's kind: one try of one webhook delivery, queued by the engine (the
first try) and by the delivery log (a retry, a resend), run by `bot.events.delivery`. Declared
here, the one module all three import: the sender records its tries through the log."""

from bot.jobs.kinds import JobKind, Payload


class TryDelivery(Payload):
    delivery_id: str
    # Tries the delivery had before this one: a try is recorded only if that still holds.
    attempt: int = 0
    series_start: int = 0  # tries before this series began (a resend starts a new series)


# A job's own attempts count only runs that crashed: the log decides when a delivery ends.
DELIVER = JobKind("events.deliver", TryDelivery, max_attempts=10)

"""Notification deliveries count for /metrics by outcome, and the Bot Connector calls behind
them by what Teams answered: sent, throttled (retried), refused (given up)."""

from datetime import timedelta

from tests.discussions.head.threads import WINDOW, Rig
from tests.notifications.rules import notify_on, thread_starts
from tests.scrape import scrape

NOTIFIED = "tracker_notification_deliveries_total"
SENDS = "tracker_bot_sends_total"


async def test_notifications_and_their_sends_are_counted_by_outcome(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    rig.connector.refusals += [(429, {"Retry-After": "3"})]
    await rig.bug(name="Told after one throttle")
    await rig.turn()
    for _ in range(3):
        await rig.turn(after=WINDOW + timedelta(seconds=5))
    assert len(thread_starts(rig.connector.calls)) == 2  # throttled once, then posted

    rig.connector.refusals.append((403, {}))  # the bot was removed from the team, say
    await rig.bug(name="Never told")
    await rig.turn()
    await rig.turn(after=WINDOW + timedelta(seconds=5))

    samples = await scrape(rig.bot)
    assert samples.count(NOTIFIED, outcome="succeeded") == 1
    assert samples.count(NOTIFIED, outcome="failed") == 1
    assert samples.count(SENDS, outcome="throttled") == 1
    assert samples.count(SENDS, outcome="refused") == 1
    assert samples.count(SENDS, outcome="sent") == 1
    assert samples.count(SENDS, outcome="unreachable") == 0

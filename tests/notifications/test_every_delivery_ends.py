"""Every notification delivery ends, succeeded or failed with its reason (in the log, a log line
and the outcome metric), or says what it waits for."""

from datetime import timedelta

from sqlalchemy import delete

from bot.db.tables import ConversationReference
from tests.discussions.head.threads import WINDOW, Rig
from tests.factories import CHANNEL
from tests.logged import captured
from tests.notifications.rules import log_of, notify_on, thread_starts
from tests.notifications.test_digests import settle
from tests.scrape import scrape

NOTIFIED = "tracker_notification_deliveries_total"


async def test_a_channel_the_app_is_not_installed_in_fails_the_notification_with_why(
    rig: Rig,
) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    async with rig.factory.work() as uow:  # as in the demo: no conversation to post in
        await uow.execute(
            delete(ConversationReference).where(ConversationReference.conversation_id == CHANNEL)
        )
    with captured() as logged:
        await rig.bug(name="Told nowhere")
        await rig.turn()
        await rig.turn(after=WINDOW)

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "failed"
    assert delivery["attemptCount"] == 1
    assert delivery["finishedAt"] is not None
    [attempt] = delivery["attempts"]
    assert attempt["outcome"] == "failed"
    assert "not installed" in attempt["error"]
    assert delivery["waitingFor"] is None
    assert any(
        "not installed" in line["message"] and "1 notification" in line["message"]
        for line in logged.lines()
    )
    samples = await scrape(rig.bot)
    assert samples.count(NOTIFIED, outcome="failed") == 1
    assert thread_starts(rig.connector.calls) == []


async def test_a_notification_held_for_quiet_hours_says_so_until_the_digest_tells_it(
    rig: Rig,
) -> None:
    now = rig.factory.clock.now()
    start = (now - timedelta(minutes=1)).strftime("%H:%M")
    end = (now + timedelta(minutes=30)).strftime("%H:%M")
    response = await rig.bot.patch(
        "/api/channel/settings",
        json={"quietHours": {"start": start, "end": end, "timeZone": "UTC"}},
        headers=rig.ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="Told in the morning")
    await rig.turn()
    await rig.turn(after=WINDOW)

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "pending"
    assert "quiet hours" in delivery["waitingFor"]

    await settle(rig, turns=2, step=timedelta(minutes=20))  # the quiet hours end
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "succeeded"
    assert delivery["waitingFor"] is None

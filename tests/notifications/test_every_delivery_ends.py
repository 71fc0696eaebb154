"""Every notification delivery ends, succeeded or failed with its reason (in the log, a log line
and the outcome metric), or says what it waits for."""

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, update

from bot.db.tables import ConversationReference, Job
from bot.discussions.digests import POST_DIGEST
from bot.discussions.refresh_job import REFRESH
from bot.jobs.kinds import JobKind
from tests.discussions.head.threads import WINDOW, Rig
from tests.factories import CHANNEL
from tests.logged import captured
from tests.notifications.rules import log_of, notify_on, thread_starts
from tests.notifications.test_digests import digest_cards, settle
from tests.scrape import scrape

NOTIFIED = "tracker_notification_deliveries_total"
THROTTLED = (429, {"Retry-After": "7"})


async def _tried_for_days(rig: Rig, kind: JobKind[Any]) -> None:
    """The queued job of `kind` has used every try but its last (an outage of days)."""
    async with rig.factory.work() as uow:
        changed = await uow.execute(
            update(Job)
            .where(Job.kind == kind.name, Job.state == "queued")
            .values(attempts=Job.max_attempts - 1)
            .returning(Job.id)
        )
    assert len(changed) == 1


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


async def test_a_notification_whose_thread_start_is_given_up_fails_with_the_last_error(
    rig: Rig,
) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="Told during an outage")
    await rig.turn()
    rig.connector.refusals.append(THROTTLED)
    await rig.turn(after=WINDOW)
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "pending"
    assert delivery["waitingFor"] == "a retry: Teams answered 429"

    await _tried_for_days(rig, REFRESH)
    rig.connector.refusals.append(THROTTLED)
    with captured() as logged:
        await rig.turn(after=timedelta(seconds=7))

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "failed"
    assert delivery["waitingFor"] is None
    assert delivery["finishedAt"] is not None
    [attempt] = delivery["attempts"]
    assert attempt["outcome"] == "failed"
    assert "Gave up after" in attempt["error"] and "Teams answered 429" in attempt["error"]
    assert any(
        "1 notification delivery failed" in line["message"] and "429" in line["message"]
        for line in logged.lines()
    )
    assert (await scrape(rig.bot)).count(NOTIFIED, outcome="failed") == 1
    await settle(rig, turns=2, step=timedelta(hours=2))
    assert len(thread_starts(rig.connector.calls)) == 2  # the two refused; nothing after


async def test_a_notification_whose_digest_is_given_up_fails_and_the_next_digest_is_told(
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
    await rig.bug(name="Held for the morning")
    await rig.turn()
    await rig.turn(after=WINDOW)
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert "quiet hours" in delivery["waitingFor"]

    await _tried_for_days(rig, POST_DIGEST)
    rig.connector.refusals.append(THROTTLED)
    await settle(rig, turns=2, step=timedelta(minutes=20))  # the quiet hours end

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "failed"
    assert delivery["waitingFor"] is None
    [attempt] = delivery["attempts"]
    assert "Gave up after" in attempt["error"] and "Teams answered 429" in attempt["error"]
    assert (await scrape(rig.bot)).count(NOTIFIED, outcome="failed") == 1

    rig.connector.calls.clear()  # the channel's digest closed: a later notification is told
    await rig.bug(name="Told after the outage")
    await settle(rig, turns=4)
    states = sorted(delivery["state"] for delivery in await log_of(rig.bot, rig.ada, rule))
    assert states == ["failed", "succeeded"]
    assert len(thread_starts(rig.connector.calls)) == 1
    assert digest_cards(rig) == []

"""Notification rules: an item's first notification starts its thread with the item's card as
the root (no reply after it); later ones reply in that thread, @mentioning the assignees; one
change is one reply however many rules match it; each rule's log says what it posted."""

from datetime import timedelta

from sqlalchemy import select

from bot.db.tables import ItemThread
from bot.keys import DUE_SWEEP
from tests.cards.samples import root_title
from tests.discussions.head.threads import WINDOW, Rig
from tests.events.engine.helpers import condition, where
from tests.notifications.rules import (
    log_of,
    mentioned,
    notify_on,
    replies,
    root_card,
    thread_starts,
)
from tests.teams.activities import GRACE, LIN


async def test_the_first_notification_starts_the_thread_with_the_card_and_no_reply(
    rig: Rig,
) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    bug = await rig.bug(name="Checkout is down", assignedTo=[rig.grace.user.id])
    await rig.turn()  # the event becomes the item's burst
    assert thread_starts(rig.connector.calls) == []  # gathered for the window first
    await rig.turn(after=WINDOW)

    [start] = thread_starts(rig.connector.calls)
    assert "Checkout is down" in root_title(root_card(start))
    assert mentioned(start.body["activity"]) == [GRACE.object_id]
    assert replies(rig.connector.calls) == []
    async with rig.factory.work(write=False) as uow:
        thread = await uow.row(select(ItemThread).where(ItemThread.item_id == bug["_id"]))
    assert thread is not None and thread["root_message_id"] is not None
    listed = await rig.bot.get(f"/api/bugs/{bug['_id']}/messages", headers=rig.ada.in_channel())
    assert (await listed.json())["@odata.count"] == 1  # the root, and nothing after it

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "succeeded"
    assert delivery["method"] == "Notification"


async def test_later_notifications_reply_in_the_thread_and_mention_the_assignees(
    rig: Rig,
) -> None:
    await notify_on(rig.bot, rig.ada)
    bug = await rig.bug(name="Slow search", assignedTo=[rig.grace.user.id])
    await rig.patch(rig.ada, bug["_id"], priority="High")
    await rig.turn()
    await rig.turn(after=WINDOW)
    [start] = thread_starts(rig.connector.calls)
    root_id = start.body["activity"].get("id") or rig.connector.calls.index(start)
    rig.connector.calls.clear()

    await rig.patch(rig.lin, bug["_id"], status="In Progress", assignedTo=[rig.lin.user.id])
    await rig.turn()
    await rig.turn(after=WINDOW)

    assert thread_starts(rig.connector.calls) == []
    [reply] = replies(rig.connector.calls)
    assert ";messageid=" in reply.path  # in the item's thread
    assert "moved it to In Progress" in reply.body["text"]
    assert mentioned(reply.body) == [LIN.object_id]  # the assignees after the change
    assert root_id is not None
    [update] = [call for call in rig.connector.calls if call.method == "PUT"]
    assert "In Progress" in str(update.body["attachments"][0]["content"])


async def test_two_rules_matching_one_change_make_one_reply(rig: Rig) -> None:
    every = await notify_on(rig.bot, rig.ada)
    assigned = await notify_on(
        rig.bot, rig.ada, conditions=where(condition("assignedTo", "Changed"))
    )
    bug, _ = await rig.discussed_bug(name="Login loop")
    rig.connector.calls.clear()

    await rig.patch(rig.ada, bug["_id"], assignedTo=[rig.grace.user.id])
    await rig.turn()
    await rig.turn(after=WINDOW)

    [reply] = replies(rig.connector.calls)
    assert mentioned(reply.body) == [GRACE.object_id]
    assert thread_starts(rig.connector.calls) == []
    for rule in (every, assigned):
        [delivery] = await log_of(rig.bot, rig.ada, rule)
        assert delivery["state"] == "succeeded"


async def test_a_rule_switched_off_posts_nothing(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    response = await rig.bot.patch(
        f"/odata/eventDefinitions({rule})", json={"enable": False}, headers=rig.ada.in_channel()
    )
    assert response.status == 204
    await rig.bug(name="Quiet bug")
    await rig.turn()
    await rig.turn(after=WINDOW)
    assert rig.connector.calls == []
    assert await log_of(rig.bot, rig.ada, rule) == []


async def test_a_change_no_rule_matches_posts_nothing(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, conditions=where(condition("priority", "ChangedTo", "High")))
    bug = await rig.bug(name="Typo")
    await rig.patch(rig.ada, bug["_id"], name="Typo on the home page")
    await rig.turn()
    await rig.turn(after=WINDOW)
    assert rig.connector.calls == []


async def test_a_refused_notification_is_failed_in_the_log_and_starts_no_thread(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    rig.connector.refusals.append((403, {}))  # the bot was removed from the team, say
    bug = await rig.bug(name="Nobody will hear")
    await rig.turn()
    await rig.turn(after=WINDOW)

    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "failed"
    assert "403" in delivery["attempts"][0]["error"]
    async with rig.factory.work(write=False) as uow:
        claim = await uow.row(select(ItemThread).where(ItemThread.item_id == bug["_id"]))
    assert claim is None  # a later notification may start it


async def test_throttled_and_gateway_errors_still_post_each_notification_once(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    rig.connector.refusals += [(429, {"Retry-After": "3"}), (502, {})]
    await rig.bug(name="Eventually told")
    await rig.turn()
    for _ in range(6):
        await rig.turn(after=timedelta(seconds=40))

    starts = thread_starts(rig.connector.calls)
    assert len(starts) == 3  # refused twice, then posted
    assert replies(rig.connector.calls) == []


async def test_a_channel_whose_notifications_keep_failing_is_told_once(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    rig.connector.refusals += [(404, {})] * 4  # each notification refused for good
    for n in range(4):
        await rig.bug(name=f"Lost {n}")
        await rig.turn()
        await rig.turn(after=WINDOW)
    await rig.turn()  # the announcement's job
    await rig.turn(after=WINDOW)

    told = [
        call
        for call in thread_starts(rig.connector.calls)
        if "Notifications here are failing" in str(call.body["activity"]["attachments"])
    ]
    assert len(told) == 1


async def test_a_notification_is_not_resent(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="Told once")
    await rig.turn()
    await rig.turn(after=WINDOW)
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    response = await rig.bot.post(
        f"/api/events/{rule}/deliveries/{delivery['_id']}/resend", headers=rig.ada.in_channel()
    )
    assert response.status == 409
    assert len(thread_starts(rig.connector.calls)) == 1


async def test_an_item_deleted_after_its_notification_started_the_thread_is_told_there(
    rig: Rig,
) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    bug = await rig.bug(name="Soon gone")
    await rig.turn()
    await rig.turn(after=WINDOW)
    [start] = thread_starts(rig.connector.calls)
    rig.connector.calls.clear()

    await rig.delete(rig.ada, bug["_id"])
    await rig.turn()
    await rig.turn(after=WINDOW)
    assert thread_starts(rig.connector.calls) == []  # no new thread for a deleted item
    [update] = [call for call in rig.connector.calls if call.method == "PUT"]
    assert "(deleted)" in root_title(update.body["attachments"][0]["content"])
    [reply] = replies(rig.connector.calls)
    assert "deleted it" in reply.body["text"]
    assert start.body["activity"]["attachments"]


async def test_an_item_deleted_before_its_first_notification_posts_nothing(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    bug = await rig.bug(name="Gone at once")
    await rig.turn()
    await rig.delete(rig.ada, bug["_id"])
    await rig.turn()
    await rig.turn(after=WINDOW)
    assert rig.connector.calls == []
    [delivery] = await log_of(rig.bot, rig.ada, rule)
    assert delivery["state"] == "failed"
    assert "deleted" in delivery["attempts"][0]["error"]


async def test_the_channels_default_rules_post_nothing_until_one_is_switched_on(rig: Rig) -> None:
    response = await rig.bot.get("/api/events", headers=rig.ada.in_channel())
    defaults = {rule["eventName"]: rule for rule in (await response.json())["value"]}
    created = next(rule for name, rule in defaults.items() if name.lower() == "bug created")
    assert not any(rule["enable"] for rule in defaults.values())
    await rig.bug(name="Nobody is told")
    await rig.turn()
    await rig.turn(after=WINDOW)
    assert rig.connector.calls == []

    response = await rig.bot.patch(
        f"/odata/eventDefinitions({created['_id']})",
        json={"enable": True},
        headers=rig.ada.in_channel(),
    )
    assert response.status == 204
    await rig.bug(name="Everyone is told")
    await rig.turn()
    await rig.turn(after=WINDOW)
    [start] = thread_starts(rig.connector.calls)
    assert "Everyone is told" in root_title(root_card(start))


async def test_due_soon_and_overdue_are_told_in_the_items_thread(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, "DUESOON")
    await notify_on(rig.bot, rig.ada, "OVERDUE")
    due = rig.factory.clock.now() + timedelta(hours=2)
    await rig.bug(name="Release notes", dueDate=due.isoformat(), assignedTo=[rig.grace.user.id])
    await rig.bot.app[DUE_SWEEP].run_once()  # within the day's window: due soon
    await rig.turn()
    await rig.turn(after=WINDOW)
    [start] = thread_starts(rig.connector.calls)
    assert mentioned(start.body["activity"]) == [GRACE.object_id]

    await rig.turn(after=timedelta(hours=3))
    await rig.bot.app[DUE_SWEEP].run_once()  # the due date passed: overdue
    await rig.turn()
    await rig.turn(after=WINDOW)
    [reply] = replies(rig.connector.calls)
    assert "Overdue" in reply.body["text"]
    assert mentioned(reply.body) == [GRACE.object_id]

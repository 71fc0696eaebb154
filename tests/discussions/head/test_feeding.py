"""Other features feed an item's thread through the coalescer: one reply per change, whatever
asks for it, with the people they @mention."""

from datetime import timedelta

from sqlalchemy import select

from bot.db.tables import PendingEvent
from bot.keys import THREAD_COALESCER
from tests.discussions.head.threads import WINDOW, Rig, messages
from tests.teams.activities import GRACE, LIN

SOON = timedelta(milliseconds=100)
GRACE_MENTION = {"id": GRACE.account["id"], "name": GRACE.name}
LIN_MENTION = {"id": LIN.account["id"], "name": LIN.name}


async def test_a_line_given_for_a_change_joins_its_reply_and_adds_its_mentions(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    coalescer = rig.bot.app[THREAD_COALESCER]
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    rig.factory.clock.advance(SOON)
    async with rig.factory.work() as uow:
        change = await uow.value(
            select(PendingEvent.id).where(
                PendingEvent.item_id == bug["_id"], PendingEvent.trigger == "ITEM_UPDATED"
            )
        )
        # A notification about the same change: its own words give way to the change's line.
        assert await coalescer.add_line(
            uow,
            item_id=bug["_id"],
            line="Bug 1 is now In Progress",
            key=change,
            mentions=[GRACE_MENTION],
        )
    rig.factory.clock.advance(SOON)
    async with rig.factory.work() as uow:
        assert await coalescer.add_line(
            uow, item_id=bug["_id"], line="Due tomorrow", mentions=[LIN_MENTION, GRACE_MENTION]
        )

    await rig.turn(WINDOW)
    [reply] = rig.replies()
    assert reply.body["text"] == (
        "Ada Lovelace moved it to In Progress. Due tomorrow <at>Grace Hopper</at> <at>Lin Chen</at>"
    )
    assert [entity["mentioned"] for entity in reply.body["entities"]] == [
        GRACE_MENTION,
        LIN_MENTION,
    ]
    assert [entity["text"] for entity in reply.body["entities"]] == [
        "<at>Grace Hopper</at>",
        "<at>Lin Chen</at>",
    ]
    stored = (await messages(rig.factory, bug["_id"]))[1]
    assert [m["mentioned"]["user"]["displayName"] for m in stored.mentions] == [
        "Grace Hopper",
        "Lin Chen",
    ]


async def test_a_line_alone_is_one_reply_and_refreshes_the_card(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    async with rig.factory.work() as uow:
        await rig.bot.app[THREAD_COALESCER].add_line(
            uow, item_id=bug["_id"], line="Overdue since <Monday>"
        )
    await rig.turn(WINDOW)
    assert len(rig.updates()) == 1
    assert [call.body["text"] for call in rig.replies()] == ["Overdue since &lt;Monday&gt;"]


async def test_a_line_for_a_change_already_told_adds_nothing(rig: Rig) -> None:
    bug, _ = await rig.discussed_bug()
    await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await rig.turn()
    await rig.turn(WINDOW)
    async with rig.factory.work() as uow:
        change = await uow.value(
            select(PendingEvent.id).where(
                PendingEvent.item_id == bug["_id"], PendingEvent.trigger == "ITEM_UPDATED"
            )
        )
        await rig.bot.app[THREAD_COALESCER].add_line(
            uow, item_id=bug["_id"], line="Bug 1 is now In Progress", key=change
        )
    await rig.turn(WINDOW)
    assert [call.body["text"] for call in rig.replies()] == ["Ada Lovelace moved it to In Progress"]


async def test_a_line_for_an_item_without_a_thread_is_refused_and_sends_nothing(rig: Rig) -> None:
    bug = await rig.bug()
    async with rig.factory.work() as uow:
        added = await rig.bot.app[THREAD_COALESCER].add_line(uow, item_id=bug["_id"], line="Hi")
    assert added is False
    await rig.turn(WINDOW)
    assert rig.connector.calls == []

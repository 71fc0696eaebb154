"""Noise control: when more items of a channel than its threshold would be told within its
digest window, one digest card in the channel replaces their replies (and thread starts); the
root cards of started threads are still updated."""

from datetime import timedelta

from sqlalchemy import select, update

from bot.db.tables import Channel, Item
from bot.keys import WORKER
from tests.cards.samples import actions
from tests.discussions.head.threads import WINDOW, Rig
from tests.factories import CHANNEL, insert_copies
from tests.notifications.rules import notify_on, replies, thread_starts

DIGEST_WINDOW = timedelta(seconds=5)  # NOTIFY_DIGEST_SECONDS's default
ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"


async def settle(rig: Rig, *, turns: int = 6, step: timedelta = WINDOW) -> None:
    """Worker turns with time passing: the bursts close, then the digest is due."""
    for _ in range(turns):
        await rig.turn(after=step)
        while await rig.bot.app[WORKER].run_once():
            pass


def digest_cards(rig: Rig) -> list[dict]:
    """The digests among the new threads (the others are items' roots, which open the item)."""
    cards = []
    for call in thread_starts(rig.connector.calls):
        [attachment] = call.body["activity"]["attachments"]
        assert attachment["contentType"] == ADAPTIVE_CARD
        buttons = [a.get("title", "") for a in actions(attachment["content"])]
        if not any(title.startswith("Open ") for title in buttons):
            cards.append(attachment["content"])
    return cards


def texts(card: dict) -> str:
    return str(card["body"])


async def test_a_bulk_edit_of_500_items_makes_one_digest(rig: Rig) -> None:
    rule = await notify_on(rig.bot, rig.ada)
    first = await rig.bug(name="Bulk bug")
    await insert_copies(rig.factory, first["_id"], 499)
    async with rig.factory.work(write=False) as uow:
        ids = list(await uow.values(select(Item.id).where(Item.kind == "bug")))
    assert len(ids) == 500
    response = await rig.bot.post(
        "/api/bulk/bug", json={"ids": ids, "priority": "High"}, headers=rig.ada.in_channel()
    )
    assert response.status == 200
    await settle(rig)

    [digest] = digest_cards(rig)
    assert digest["body"][0]["text"] == "500 items changed"
    assert "more" in texts(digest)  # cut to fit Teams' 28 KB, the rest counted
    assert len(thread_starts(rig.connector.calls)) == 1  # no item's thread was started
    assert replies(rig.connector.calls) == []
    response = await rig.bot.get(
        f"/api/events/{rule}/deliveries",
        params={"$count": "true", "$filter": "state eq 'succeeded'"},
        headers=rig.ada.in_channel(),
    )
    assert (await response.json())["@odata.count"] == 500


async def test_a_few_items_are_told_each_in_its_thread(rig: Rig) -> None:
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    for n in range(3):
        await rig.bug(name=f"Bug {n}")
    await settle(rig)
    assert digest_cards(rig) == []
    assert len(thread_starts(rig.connector.calls)) == 3


async def test_one_more_item_than_the_threshold_makes_a_digest_with_the_root_cards_updated(
    rig: Rig,
) -> None:
    await notify_on(rig.bot, rig.ada)
    bugs = [(await rig.discussed_bug(name=f"Discussed {n}"))[0] for n in range(6)]
    rig.connector.calls.clear()
    for bug in bugs:
        await rig.patch(rig.ada, bug["_id"], status="In Progress")
    await settle(rig)

    [digest] = digest_cards(rig)
    assert digest["body"][0]["text"] == "6 items changed"
    assert "moved it to In Progress" in texts(digest)
    assert replies(rig.connector.calls) == []
    updates = [call for call in rig.connector.calls if call.method == "PUT"]
    assert len(updates) == 6  # every root card still shows the new status


async def test_a_channel_with_digests_off_gets_every_reply(rig: Rig) -> None:
    async with rig.factory.work() as uow:
        await uow.execute(
            update(Channel).where(Channel.teams_id == CHANNEL).values(digest_window_seconds=0)
        )
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    for n in range(7):
        await rig.bug(name=f"Bug {n}")
    await settle(rig)
    assert digest_cards(rig) == []
    assert len(thread_starts(rig.connector.calls)) == 7


async def test_a_lower_threshold_of_the_channel_applies(rig: Rig) -> None:
    async with rig.factory.work() as uow:
        await uow.execute(
            update(Channel).where(Channel.teams_id == CHANNEL).values(digest_threshold=1)
        )
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="One")
    await rig.bug(name="Two")
    await settle(rig)
    [digest] = digest_cards(rig)
    assert digest["body"][0]["text"] == "2 items changed"


async def test_quiet_hours_hold_notifications_and_release_them_as_one_digest(rig: Rig) -> None:
    now = rig.factory.clock.now()
    start = (now - timedelta(minutes=1)).strftime("%H:%M")
    end = (now + timedelta(minutes=30)).strftime("%H:%M")
    response = await rig.bot.patch(
        "/api/channel/settings",
        json={"quietHours": {"start": start, "end": end, "timeZone": "UTC"}},
        headers=rig.ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="Late night bug")
    await rig.bug(name="Another one")
    await settle(rig)
    assert rig.connector.calls == []  # held: nothing reaches the channel while it is quiet

    await settle(rig, turns=2, step=timedelta(minutes=20))  # the quiet hours end
    [digest] = digest_cards(rig)
    assert digest["body"][0]["text"] == "2 items changed"
    assert "Late night bug" in texts(digest) and "Another one" in texts(digest)
    assert replies(rig.connector.calls) == []

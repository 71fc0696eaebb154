"""A digest of a thousand items and more closes on both databases: one card, every delivery
ended, the channel's later notifications told; a digest Teams took is never posted again
because recording it failed."""

from datetime import timedelta

from sqlalchemy import select, text

from bot.db.tables import Item
from tests.discussions.head.threads import Rig
from tests.factories import insert_copies
from tests.notifications.rules import notify_on, thread_starts
from tests.notifications.test_digests import digest_cards, settle

ITEMS = 1000  # the bulk edit's most


async def _bulk_edited(rig: Rig, count: int) -> None:
    first = await rig.bug(name="Bulk bug")
    await insert_copies(rig.factory, first["_id"], count - 1)
    async with rig.factory.work(write=False) as uow:
        ids = list(await uow.values(select(Item.id).where(Item.kind == "bug")))
    response = await rig.bot.post(
        "/api/bulk/bug", json={"ids": ids, "priority": "High"}, headers=rig.ada.in_channel()
    )
    assert response.status == 200, await response.text()


async def _count(rig: Rig, rule: str, state: str) -> int:
    response = await rig.bot.get(
        f"/api/events/{rule}/deliveries",
        params={"$count": "true", "$filter": f"state eq '{state}'", "$top": "1"},
        headers=rig.ada.in_channel(),
    )
    assert response.status == 200, await response.text()
    return int((await response.json())["@odata.count"])


async def test_a_digest_of_a_thousand_items_closes_and_later_notifications_are_told(
    rig: Rig,
) -> None:
    rule = await notify_on(rig.bot, rig.ada)
    await _bulk_edited(rig, ITEMS)
    await settle(rig)

    [digest] = digest_cards(rig)
    assert digest["body"][0]["text"] == f"{ITEMS} items changed"
    assert await _count(rig, rule, "succeeded") == ITEMS
    assert await _count(rig, rule, "pending") == 0

    rig.connector.calls.clear()
    created = await notify_on(rig.bot, rig.ada, "ITEM_CREATED")
    await rig.bug(name="After the digest")
    await settle(rig, turns=8)
    assert len(thread_starts(rig.connector.calls)) == 1  # the digest closed: told at once
    assert await _count(rig, created, "succeeded") == 1


_FAIL_CLOSING = {
    "sqlite": [
        "CREATE TRIGGER refuse_close BEFORE DELETE ON digest_entries "
        "BEGIN SELECT RAISE(ABORT, 'the record failed'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION refuse_close() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN RAISE EXCEPTION 'the record failed'; END $$",
        "CREATE TRIGGER refuse_close BEFORE DELETE ON digest_entries "
        "FOR EACH ROW EXECUTE FUNCTION refuse_close()",
    ],
}
_LET_CLOSE = {
    "sqlite": ["DROP TRIGGER refuse_close"],
    "postgresql": ["DROP TRIGGER refuse_close ON digest_entries", "DROP FUNCTION refuse_close()"],
}


async def _run(rig: Rig, statements: dict[str, list[str]]) -> None:
    async with rig.factory.work() as uow:
        dialect = uow.session.bind.dialect.name
        for statement in statements[dialect]:
            await uow.session.execute(text(statement))


async def test_a_digest_teams_took_is_not_posted_again_when_recording_it_failed(
    rig: Rig,
) -> None:
    rule = await notify_on(rig.bot, rig.ada)
    await _bulk_edited(rig, 20)
    await _run(rig, _FAIL_CLOSING)
    await settle(rig, turns=8)
    assert len(digest_cards(rig)) == 1  # posted; its record failed, and was retried

    await _run(rig, _LET_CLOSE)
    await settle(rig, turns=4, step=timedelta(minutes=2))
    assert len(digest_cards(rig)) == 1  # never posted again
    assert await _count(rig, rule, "succeeded") == 20
    assert await _count(rig, rule, "pending") == 0

"""A bulk edit is one transaction, though it locks, updates and records on the driver connection:
when it fails after its writes nothing is left behind, and it locks its rows in id order."""

import asyncio
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select, text

from bot import pending_events as events
from bot.db.tables import Item, ItemCounter, PendingEvent
from bot.ids import is_id
from bot.keys import ENGINE
from bot.schemas import Trigger
from tests.factories import Factory, Member
from tests.factories import create_item as create
from tests.items.test_concurrency import until_a_request_waits_for_a_lock


@pytest.fixture
def settings(db: str, make_settings: Any) -> Any:
    # No background worker: a test here disposes the app's engine, and a connection the worker
    # held meanwhile would be left to the garbage collector (an unclosed-connection warning).
    return make_settings(db, JOBS_POLL_SECONDS=0)


async def stored(factory: Factory) -> tuple[list[tuple[Any, ...]], int, int]:
    """Each item's status, priority and completed date; the pending events; the bug version."""
    async with factory.work() as uow:
        items = await uow.session.execute(
            select(Item.id, Item.status, Item.priority, Item.completed_date).order_by(Item.id)
        )
        pending = await uow.session.scalar(select(func.count()).select_from(PendingEvent))
        version = await uow.session.scalar(
            select(ItemCounter.version).where(ItemCounter.kind == "bug")
        )
    return [tuple(item) for item in items], pending or 0, version or 0


# A status edit reads the mappings through the session first; a priority edit's first statement
# is the lock on the driver, which begins PostgreSQL's transaction itself.
@pytest.mark.parametrize("edit", [{"status": "Completed"}, {"priority": "Low"}])
async def test_a_bulk_edit_that_fails_after_its_writes_leaves_nothing_behind(
    client, factory: Factory, monkeypatch: pytest.MonkeyPatch, edit: dict[str, str]
) -> None:
    ada = await factory.member()
    ids = [(await create(client, ada, name=f"Bug {n}"))["_id"] for n in range(3)]
    before = await stored(factory)
    record = events.record
    written: list[tuple[str, str]] = []  # id and item of each ITEM_UPDATED

    async def recorded_then_lost(uow: Any, **kwargs: Any) -> None:
        await record(uow, **kwargs)
        found = await uow.session.execute(
            select(PendingEvent.id, PendingEvent.item_id).where(
                PendingEvent.trigger == Trigger.ITEM_UPDATED
            )
        )
        written.extend(tuple(event) for event in found)
        raise RuntimeError("the request failed after its writes")

    with monkeypatch.context() as patched:
        patched.setattr(events, "record", recorded_then_lost)
        response = await client.post(
            "/api/bulk/bug", json={"ids": ids, **edit}, headers=ada.in_channel()
        )
        assert response.status == 500
    # The events were written, one per item, each with its own id, in the edit's transaction.
    assert sorted(item_id for _id, item_id in written) == sorted(ids)
    assert len({event_id for event_id, _item in written}) == 3
    assert all(is_id(event_id) for event_id, _item in written)
    assert await stored(factory) == before
    response = await client.post(
        "/api/bulk/bug", json={"ids": ids, **edit}, headers=ada.in_channel()
    )
    assert response.status == 200
    items, pending, version = await stored(factory)
    # The version moved (by the database: once a statement on PostgreSQL, once a row on SQLite).
    assert pending == before[1] + 3 and version > before[2]


async def test_a_bulk_edit_locks_its_rows_in_id_order(app, client, factory: Factory) -> None:
    ada = await factory.member()
    ids = sorted([(await create(client, ada, name=f"Bug {n}"))["_id"] for n in range(7)])
    if factory.engine.dialect.name != "postgresql":
        await _waits_for_the_writer_before_it(client, factory, ada, ids)
        return
    async with factory.engine.begin() as connection:
        # Updates move rows: updated one by one in reverse id order, they lie in that order, and
        # a plan without indexes (which the app's connections are kept off here) meets them so.
        for item_id in reversed(ids):
            await connection.execute(
                text("UPDATE items SET name = name || '.' WHERE id = :id"), {"id": item_id}
            )
        database = await connection.scalar(text("SELECT current_database()"))
        await connection.execute(text(f'ALTER DATABASE "{database}" SET enable_indexscan = off'))
        await connection.execute(text(f'ALTER DATABASE "{database}" SET enable_bitmapscan = off'))
    await app[ENGINE].dispose()  # the app's next connections take the settings
    try:
        async with factory.engine.connect() as holder:
            # The test holds the middle row: an edit that locks in id order holds the rows
            # before it, and none after it, whatever order the request names them in.
            await holder.execute(
                text("SELECT id FROM items WHERE id = :id FOR UPDATE"), {"id": ids[3]}
            )
            body = {"ids": ids, "priority": "Low"}
            edit = asyncio.create_task(
                client.post("/api/bulk/bug", json=body, headers=ada.in_channel())
            )
            await until_a_request_waits_for_a_lock(factory)
            async with factory.engine.connect() as probe:
                free = await probe.scalars(
                    text("SELECT id FROM items ORDER BY id FOR UPDATE SKIP LOCKED")
                )
                assert list(free) == ids[4:]
                await probe.rollback()
            await holder.rollback()
        response = await edit
        assert response.status == 200
        assert [result["status"] for result in await response.json()] == ["success"] * 7
    finally:
        async with factory.engine.begin() as connection:
            await connection.execute(text(f'ALTER DATABASE "{database}" RESET enable_indexscan'))
            await connection.execute(text(f'ALTER DATABASE "{database}" RESET enable_bitmapscan'))
        await app[ENGINE].dispose()


async def _waits_for_the_writer_before_it(
    client: TestClient, factory: Factory, ada: Member, ids: list[str]
) -> None:
    """SQLite locks the whole database for a writer, not rows: an edit waits for the writer
    before it, then edits every row."""
    async with factory.engine.connect() as holder:
        held = (await holder.get_raw_connection()).driver_connection
        await held.fetch("BEGIN IMMEDIATE")
        body = {"ids": ids, "priority": "Low"}
        edit = asyncio.create_task(
            client.post("/api/bulk/bug", json=body, headers=ada.in_channel())
        )
        await until_a_request_waits_for_a_lock(factory)
        assert not edit.done()
        await held.fetch("ROLLBACK")
    response = await edit
    assert response.status == 200
    assert [result["status"] for result in await response.json()] == ["success"] * 7

"""Requests that race: numbers stay unique and gapless, and no race turns into an error."""

import asyncio
from collections import Counter
from collections.abc import Collection
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import select, text, update

import bot.db.uow as uow_module
from bot.db.tables import Item, ItemCounter, PendingEvent
from bot.settings import Settings
from tests.factories import Factory
from tests.factories import create_item as create
from tests.waiting import until


@pytest.fixture
def settings(db: str, make_settings: Any) -> Settings:
    # No background worker: on SQLite its writes would queue with the racing requests', which
    # `until_a_request_waits_for_a_lock` counts.
    return make_settings(db, JOBS_POLL_SECONDS=0)


async def until_a_request_waits_for_a_lock(
    factory: Factory, requests: int = 1, *, unless_ended: Collection[asyncio.Future] = ()
) -> None:
    """Return once `requests` requests are blocked on locks (the test's open transaction's, or
    one another's), or once every request in `unless_ended` has ended (where the test's lock
    blocks no one: on SQLite, a read takes no write lock). The app must run no worker
    (`JOBS_POLL_SECONDS=0`): on SQLite, its writes would queue with the requests'."""

    async def waiting() -> bool:
        if unless_ended and all(request.done() for request in unless_ended):
            return True
        if factory.engine.dialect.name == "postgresql":
            return await _backends_waiting_for_a_lock(factory) >= requests
        return _sqlite_writers_queued(factory) >= requests

    await until(waiting, f"{requests} request(s) to wait for a lock together")


async def _backends_waiting_for_a_lock(factory: Factory) -> int:
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    async with factory.engine.connect() as conn:
        return int(await conn.scalar(waiting))


def _sqlite_writers_queued(factory: Factory) -> int:
    """The app's writing units queued for its engine's writer lock (`bot.db.uow`), the one
    holding it included: while the test holds SQLite's write lock, that one waits for it in
    BEGIN IMMEDIATE, and the others wait behind it, in the order they came."""
    own = factory.engine.sync_engine
    return sum(
        lock.locked() + len(lock._waiters or ())
        for engine, lock in list(uow_module._sqlite_writers.items())
        if engine is not own
    )


async def send(client: TestClient, method: str, path: str, **kwargs: Any) -> tuple[int, str]:
    response = await client.request(method, path, **kwargs)
    return response.status, await response.text()


async def test_50_concurrent_creates_get_internal_ids_1_to_50_once_each(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    created = await asyncio.gather(*(create(client, ada, name=f"Bug {n}") for n in range(50)))
    assert sorted(item["internalId"] for item in created) == list(range(1, 51))
    async with factory.work() as uow:
        numbers = list(await uow.session.scalars(select(Item.internal_id)))
        counter = await uow.session.scalar(
            select(ItemCounter.last_internal_id).where(ItemCounter.kind == "bug")
        )
        created_events = list(await uow.session.scalars(select(PendingEvent.item_id)))
    assert sorted(numbers) == list(range(1, 51)) and counter == 50
    assert sorted(created_events) == sorted(item["_id"] for item in created)
    assert (await create(client, ada))["internalId"] == 51


async def test_concurrent_creates_of_bugs_and_tasks_number_each_kind_apart(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    kinds = ["bug", "task"] * 20
    created = await asyncio.gather(*(create(client, ada, of) for of in kinds))
    for of in ("bug", "task"):
        numbers = [item["internalId"] for item, k in zip(created, kinds, strict=True) if k == of]
        assert sorted(numbers) == list(range(1, 21))


async def test_concurrent_patches_of_one_item_all_succeed_and_one_wins(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    names = [f"Name {n}" for n in range(20)]
    answers = await asyncio.gather(
        *(
            send(
                client,
                "PATCH",
                f"/odata/bugs({bug['_id']})",
                json={"name": name, "priority": "High" if n % 2 else "Low"},
                headers=ada.in_channel(),
            )
            for n, name in enumerate(names)
        )
    )
    assert answers == [(204, "")] * 20
    async with factory.work() as uow:
        item = await uow.session.get(Item, bug["_id"])
        updates = list(
            await uow.session.scalars(
                select(PendingEvent.payload).where(PendingEvent.trigger == "ITEM_UPDATED")
            )
        )
    assert item is not None and item.name in names
    # Each PATCH saw the one before it: every one renamed the item, so each recorded a change.
    assert len(updates) == 20
    assert Counter(c["new"] for u in updates for c in u["changes"] if c["field"] == "name") == (
        Counter(names)
    )


async def test_concurrent_bulk_edits_of_overlapping_items_all_succeed(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    ids = [(await create(client, ada, name=f"Bug {n}"))["_id"] for n in range(10)]
    bodies = [
        {"ids": ids, "priority": "High"},
        {"ids": list(reversed(ids)), "priority": "Low", "status": "In Progress"},
        {"ids": ids[::2], "status": "Completed"},
        {"ids": ids[1::2] + ids[::2], "dueDate": "2026-12-01"},
    ] * 3
    answers = await asyncio.gather(
        *(client.post("/api/bulk/bug", json=body, headers=ada.in_channel()) for body in bodies)
    )
    for body, answer in zip(bodies, answers, strict=True):
        assert answer.status == 200
        assert [r["status"] for r in await answer.json()] == ["success"] * len(body["ids"])
    async with factory.work() as uow:
        items = list(await uow.session.scalars(select(Item)))
    assert {item.priority for item in items} <= {"High", "Low"}
    assert all(item.due_date is not None for item in items)
    for item in items:
        assert (item.completed_date is not None) == (item.status == "Completed")


async def test_concurrent_deletes_of_one_item_delete_it_once(client, factory: Factory) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    answers = await asyncio.gather(
        *(
            send(client, "DELETE", f"/odata/bugs({bug['_id']})", headers=ada.in_channel())
            for _ in range(10)
        )
    )
    assert sorted(status for status, _ in answers) == [204] + [404] * 9
    async with factory.work() as uow:
        triggers = list(await uow.session.scalars(select(PendingEvent.trigger)))
    assert sorted(triggers) == ["ITEM_CREATED", "ITEM_DELETED"]


async def test_patches_racing_a_delete_answer_204_or_404_never_an_error(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada)
    path = f"/odata/bugs({bug['_id']})"
    requests = [
        send(client, "PATCH", path, json={"name": f"N{n}"}, headers=ada.in_channel())
        for n in range(10)
    ]
    requests.insert(5, send(client, "DELETE", path, headers=ada.in_channel()))
    answers = await asyncio.gather(*requests)
    assert {status for status, _ in answers} <= {204, 404}
    assert answers[5][0] == 204
    async with factory.work() as uow:
        assert await uow.session.get(Item, bug["_id"]) is None


async def test_a_delete_racing_a_change_records_the_state_it_deleted(
    client, factory: Factory
) -> None:
    ada = await factory.member()
    bug = await create(client, ada, name="Original")
    path = f"/odata/bugs({bug['_id']})"
    async with factory.work() as uow:
        # A change in flight (as a PATCH would make it) when the delete arrives.
        await uow.session.execute(update(Item).where(Item.id == bug["_id"]).values(name="Changed"))
        deleting = asyncio.create_task(send(client, "DELETE", path, headers=ada.in_channel()))
        await until_a_request_waits_for_a_lock(factory)
    assert (await deleting)[0] == 204
    async with factory.work() as uow:
        deleted = await uow.session.scalar(
            select(PendingEvent.payload).where(PendingEvent.trigger == "ITEM_DELETED")
        )
    assert deleted is not None and deleted["item"]["name"] == "Changed"

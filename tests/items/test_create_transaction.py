"""A create is one transaction, though its writes run on the driver connection: when it fails
after them, nothing is left behind (on PostgreSQL the first write is what begins it)."""

from typing import Any

import pytest
from sqlalchemy import func, select

from bot import pending_events as events
from bot.db.tables import Item, ItemCounter, PendingEvent
from tests.factories import Factory
from tests.factories import create_item as create


async def stored(factory: Factory) -> tuple[int, int, int, int]:
    """Items, pending events, and the bug counter's last number and version."""
    async with factory.work() as uow:
        items = await uow.session.scalar(select(func.count()).select_from(Item))
        pending = await uow.session.scalar(select(func.count()).select_from(PendingEvent))
        counter = (
            await uow.session.execute(
                select(ItemCounter.last_internal_id, ItemCounter.version).where(
                    ItemCounter.kind == "bug"
                )
            )
        ).one()
    return items or 0, pending or 0, counter.last_internal_id, counter.version


async def test_a_create_that_fails_after_its_writes_leaves_nothing_behind(
    client, factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada = await factory.member()
    await create(client, ada, name="Before")
    before = await stored(factory)

    async def lost(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("the event could not be written")

    with monkeypatch.context() as patched:
        patched.setattr(events, "record", lost)  # after the counter and the item
        response = await client.post("/odata/bugs", json={"name": "Lost"}, headers=ada.in_channel())
        assert response.status == 500
    assert await stored(factory) == before == (1, 1, 1, before[3])
    assert (await create(client, ada, name="After"))["internalId"] == 2

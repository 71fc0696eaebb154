"""Reads on the raw driver give what SQLAlchemy gives, whatever the statement's shape."""

from datetime import UTC, datetime, timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import func, select

from bot.db import driver
from bot.db.expressions import one_of
from bot.db.tables import Item
from bot.db.types import timestamp_text
from tests.factories import Factory, create_item

ITEM = Item.__table__.c


@pytest.fixture
async def items(client: TestClient, factory: Factory) -> list[dict]:
    await factory.standard_team()
    member = await factory.member()
    due = datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC)
    return [
        await create_item(
            client, member, name=f"Bug {n}", dueDate=(due + timedelta(days=n)).isoformat()
        )
        for n in range(3)
    ] + [await create_item(client, member, name="No due date")]


async def _both(factory: Factory, statement) -> tuple[list[dict], list[dict]]:  # noqa: ANN001
    async with factory.work() as uow:
        expected = [dict(row) for row in (await uow.session.execute(statement)).mappings()]
        return expected, await driver.fetch_all(uow.session, statement)


async def test_rows_hold_the_values_sqlalchemy_gives(factory: Factory, items: list[dict]) -> None:
    statement = select(*ITEM).order_by(ITEM.internal_id)
    expected, rows = await _both(factory, statement)
    assert rows == expected
    assert rows[0]["due_date"] == datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC)
    assert rows[-1]["due_date"] is None


async def test_a_cached_plan_takes_each_statements_own_values(
    factory: Factory, items: list[dict]
) -> None:
    after = datetime(2026, 12, 1, 12, tzinfo=UTC)
    for name in ("Bug 1", "Bug 2", "No due date"):
        statement = select(ITEM.name).where(ITEM.name == name)
        expected, rows = await _both(factory, statement)
        assert rows == expected == [{"name": name}]
    later = select(ITEM.name).where(ITEM.due_date > after).order_by(ITEM.name)
    expected, rows = await _both(factory, later)
    assert rows == expected == [{"name": "Bug 1"}, {"name": "Bug 2"}]


async def test_one_of_matches_any_number_of_values(factory: Factory, items: list[dict]) -> None:
    ids = [item["_id"] for item in items]
    for chosen in ([], ids[:1], ids[1:3], ids, ["no-such-id"]):
        statement = select(ITEM.id).where(one_of(ITEM.id, chosen)).order_by(ITEM.id)
        expected, rows = await _both(factory, statement)
        assert [row["id"] for row in rows] == sorted(chosen if chosen != ["no-such-id"] else [])
        assert rows == expected


async def test_single_values_and_labels(factory: Factory, items: list[dict]) -> None:
    async with factory.work() as uow:
        assert await driver.fetch_value(uow.session, select(func.count()).select_from(Item)) == 4
        row = await driver.fetch_one(uow.session, select(ITEM.name.label("title")).limit(1))
        assert row is not None and set(row) == {"title"}
        assert await driver.fetch_one(uow.session, select(ITEM.id).where(ITEM.id == "x")) is None


async def test_an_expanding_in_list_reads_the_same(factory: Factory, items: list[dict]) -> None:
    ids = [item["_id"] for item in items]
    for chosen in (ids[:1], ids[1:]):
        statement = select(ITEM.id, ITEM.due_date).where(ITEM.id.in_(chosen)).order_by(ITEM.id)
        expected, rows = await _both(factory, statement)
        assert rows == expected and [row["id"] for row in rows] == sorted(chosen)


async def test_timestamps_read_as_the_apis_text(factory: Factory, items: list[dict]) -> None:
    shown = timestamp_text(ITEM.due_date).label("due")
    statement = select(shown).order_by(ITEM.internal_id)
    expected, rows = await _both(factory, statement)
    assert rows == expected
    assert [row["due"] for row in rows] == [
        "2026-12-01T08:30:15.123Z",
        "2026-12-02T08:30:15.123Z",
        "2026-12-03T08:30:15.123Z",
        None,
    ]


async def test_a_locking_read_is_left_to_the_session(factory: Factory, items: list[dict]) -> None:
    async with factory.work() as uow:
        with pytest.raises(ValueError, match="FOR UPDATE"):
            await driver.fetch_all(uow.session, select(ITEM.id).with_for_update())


async def test_each_transaction_of_a_session_reads_on_its_own_connection(
    client: TestClient, factory: Factory, items: list[dict]
) -> None:
    count = select(func.count()).select_from(Item)
    async with factory.work() as uow:
        session = uow.session
    async with session.begin():
        assert await driver.fetch_value(session, count) == 4
    member = await factory.member()
    await create_item(client, member, name="Added between the transactions")
    async with session.begin():
        assert await driver.fetch_value(session, count) == 5
    await session.close()

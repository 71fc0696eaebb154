"""Reads on the raw driver give what SQLAlchemy gives, whatever the statement's shape."""

import gc
import sqlite3
import weakref
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import bindparam, delete, func, select, text, update

from bot.clock import FrozenClock
from bot.db import driver
from bot.db.expressions import one_of, one_of_named
from bot.db.reads import Reads
from bot.db.tables import Item
from bot.db.types import timestamp_text
from bot.uow import UnitOfWork
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
        return expected, await driver.fetch_all(uow.reads, statement)


async def _value(reads: Reads, statement) -> object:  # noqa: ANN001
    """The first column of the statement's first row."""
    row = await driver.fetch_one(reads, statement)
    assert row is not None
    return next(iter(row.values()))


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
        assert await _value(uow.reads, select(func.count()).select_from(Item)) == 4
        row = await driver.fetch_one(uow.reads, select(ITEM.name.label("title")).limit(1))
        assert row is not None and set(row) == {"title"}
        assert await driver.fetch_one(uow.reads, select(ITEM.id).where(ITEM.id == "x")) is None


async def test_an_in_list_that_expands_is_refused_for_one_of(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work() as uow:
        with pytest.raises(ValueError, match="one_of"):
            await driver.fetch_all(uow.reads, select(ITEM.id).where(ITEM.id.in_(["a", "b"])))


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


async def test_timestamps_stored_without_a_fraction_read_with_one(
    factory: Factory, items: list[dict]
) -> None:
    # Text that SQL wrote (defaults, hand-run fixes) rather than UTCDateTime.
    sqlite = factory.engine.dialect.name == "sqlite"
    due = "'2026-12-05 08:30:15'" if sqlite else "'2026-12-05 08:30:15+00'::timestamptz"
    async with factory.work() as uow:
        await uow.session.execute(
            text(f"UPDATE items SET due_date = {due} WHERE id = :id"), {"id": items[0]["_id"]}
        )
    shown = select(timestamp_text(ITEM.due_date).label("due")).where(ITEM.id == items[0]["_id"])
    async with factory.work(write=False) as uow:
        assert await _value(uow.reads, shown) == "2026-12-05T08:30:15.000Z"


async def test_a_locking_read_is_left_to_the_session(factory: Factory, items: list[dict]) -> None:
    async with factory.work() as uow:
        with pytest.raises(ValueError, match="FOR UPDATE"):
            await driver.fetch_all(uow.reads, select(ITEM.id).with_for_update())


async def test_a_writing_unit_reads_its_own_writes(factory: Factory, items: list[dict]) -> None:
    count = select(func.count()).select_from(Item)
    async with factory.work() as uow:
        await uow.session.execute(delete(Item).where(ITEM.name == "No due date"))
        assert await _value(uow.reads, count) == 3
        async with factory.work(write=False) as other:  # not committed yet: not seen
            assert await _value(other.reads, count) == 4


async def test_a_writing_units_session_and_driver_share_one_transaction(
    factory: Factory, items: list[dict]
) -> None:
    rename = driver.PreparedWrite(
        update(Item.__table__).where(ITEM.id == bindparam("item")).values(name=bindparam("name"))
    )
    first, second = items[0]["_id"], items[1]["_id"]
    names = select(ITEM.name).where(one_of(ITEM.id, [first, second])).order_by(ITEM.name)

    async def renamed(session_name: str, driver_name: str) -> None:
        async with factory.work() as uow:
            await rename.run(uow.reads, {"item": first, "name": driver_name})
            item = await uow.session.get(Item, second)
            assert item is not None
            item.name = session_name  # pending in the session until the unit ends
            if session_name == "fail":
                raise RuntimeError("roll back")

    with pytest.raises(RuntimeError):
        await renamed("fail", "Lost too")
    async with factory.work(write=False) as uow:
        assert [row.name for row in await driver.fetch_all(uow.reads, names)] == ["Bug 0", "Bug 1"]
    await renamed("By the session", "By the driver")
    async with factory.work(write=False) as uow:
        found = [row.name for row in await driver.fetch_all(uow.reads, names)]
        assert found == ["By the driver", "By the session"]


async def _driver_connection(uow: UnitOfWork) -> Any:
    assert await _value(uow.reads, select(func.count()).select_from(Item)) == 4
    return (await uow.reads.connection())[1]


async def test_a_reading_unit_opens_no_session_and_leaves_the_pool_as_it_was(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work(write=False) as uow:  # SQLite's shared connection, taken once
        await _driver_connection(uow)
    pool = factory.engine.sync_engine.pool
    checked_out = pool.checkedout()
    async with factory.work(write=False) as uow:
        await _driver_connection(uow)
        # PostgreSQL's unit takes a connection of its own; SQLite's reads on the shared one.
        taken = 1 if factory.engine.dialect.name == "postgresql" else 0
        assert pool.checkedout() == checked_out + taken
    assert uow.opened is None
    assert pool.checkedout() == checked_out


async def test_reading_units_share_sqlites_connection_until_the_engine_is_disposed(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work(write=False) as first, factory.work(write=False) as second:
        connections = [await _driver_connection(first), await _driver_connection(second)]
    async with factory.work(write=False) as third:
        connections.append(await _driver_connection(third))
    if factory.engine.dialect.name == "postgresql":
        # asyncpg runs one statement at a time per connection: units read on their own.
        assert connections[0] is not connections[1]
        return
    assert connections[0] is connections[1] is connections[2]
    await factory.engine.dispose()
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        await connections[0].fetch("SELECT 1")  # closed with the engine's pool, not leaked
    async with factory.work(write=False) as after:
        assert await _driver_connection(after) is not connections[0]


async def test_a_prepared_statement_takes_its_values_by_name(
    factory: Factory, items: list[dict]
) -> None:
    names = driver.Prepared(
        select(ITEM.name).where(one_of_named(ITEM.id, "ids"), ITEM.due_date > bindparam("after"))
    )
    ids = [item["_id"] for item in items]
    after = datetime(2026, 12, 1, 12, tzinfo=UTC)
    async with factory.work(write=False) as uow:
        found = await names.all(uow.reads, {"ids": ids, "after": after})
        assert sorted(row["name"] for row in found) == ["Bug 1", "Bug 2"]
        found = await names.all(uow.reads, {"ids": ids[:2], "after": after})
        assert [row["name"] for row in found] == ["Bug 1"]
        assert await names.one(uow.reads, {"ids": [], "after": after}) is None


async def test_a_prepared_write_returns_its_rows_and_rolls_back_with_its_unit(
    factory: Factory, items: list[dict]
) -> None:
    rename = driver.PreparedWrite(
        update(Item.__table__)
        .where(ITEM.id == bindparam("item"))
        .values(name=bindparam("new_name"))
        .returning(ITEM.name, ITEM.due_date)
    )
    first = items[0]["_id"]
    with pytest.raises(RuntimeError):
        async with factory.work() as uow:  # the write is its first statement
            rows = await rename.run(uow.reads, {"item": first, "new_name": "Renamed"})
            assert rows == [
                {
                    "name": "Renamed",
                    "due_date": datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC),
                }
            ]
            again = await rename.run(uow.reads, {"item": first, "new_name": "Twice"})
            assert [row.name for row in again] == ["Twice"]
            raise RuntimeError("roll back")
    async with factory.work(write=False) as uow:
        assert await _value(uow.reads, select(ITEM.name).where(ITEM.id == first)) == "Bug 0"


async def test_plans_outlive_no_engine(db: str, clock: FrozenClock) -> None:
    # Apps and tests make and dispose engines; the statements prepared at import live on.
    count = driver.Prepared(select(func.count()).select_from(Item))
    dialects = []
    for _ in range(2):
        async with Factory.open(db, clock) as factory:
            async with factory.work(write=False) as uow:
                assert await count.value(uow.reads) == 0
                assert await driver.fetch_one(uow.reads, select(ITEM.id).limit(1)) is None
            dialects.append(weakref.ref(factory.engine.dialect))
        del factory, uow
    gc.collect()
    # One kind of dialect, one plan: the first engine's dialect may stay with it, no more.
    assert sum(ref() is not None for ref in dialects) <= 1


async def test_a_prepared_lock_reads_its_rows_in_the_units_transaction(
    factory: Factory, items: list[dict]
) -> None:
    with pytest.raises(ValueError, match="FOR UPDATE"):
        driver.PreparedLock(select(ITEM.id))
    locked = driver.PreparedLock(
        select(ITEM.id, ITEM.due_date)
        .where(one_of_named(ITEM.id, "ids"))
        .order_by(ITEM.id)
        .with_for_update()
    )
    ids = sorted(item["_id"] for item in items[:2])
    async with factory.work() as uow:  # the lock is its first statement: it begins the unit
        rows = await locked.all(uow.reads, {"ids": ids})
        assert [row.id for row in rows] == ids
        assert rows[0].due_date is not None and rows[0].due_date.tzinfo is UTC
        _dialect, connection = await uow.reads.connection()
        assert connection.is_in_transaction()
    async with factory.work(write=False) as uow:
        with pytest.raises(AssertionError, match="writing unit"):
            await locked.all(uow.reads, {"ids": ids})


async def test_a_prepared_write_runs_many_rows_and_rolls_back_with_its_unit(
    factory: Factory, items: list[dict]
) -> None:
    rename = driver.PreparedWrite(
        update(Item.__table__)
        .where(ITEM.id == bindparam("item"))
        .values(name=bindparam("new_name"), due_date=bindparam("due", type_=ITEM.due_date.type))
    )
    first, second = items[0]["_id"], items[1]["_id"]
    due = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    rows = [{"item": first, "new_name": "One"}, {"item": second, "new_name": "Two"}]
    with pytest.raises(RuntimeError):
        async with factory.work() as uow:  # the writes are its first statement
            await rename.run_many(uow.reads, rows, same={"due": due})
            async with factory.work(write=False) as other:  # not committed: not seen
                assert await _value(other.reads, select(ITEM.name).where(ITEM.id == first)) == (
                    "Bug 0"
                )
            changed = await driver.fetch_all(
                uow.reads, select(ITEM.name, ITEM.due_date).where(one_of(ITEM.id, [first, second]))
            )
            assert sorted((row.name, row.due_date) for row in changed) == [
                ("One", due),
                ("Two", due),
            ]
            raise RuntimeError("roll back")
    async with factory.work(write=False) as uow:
        names = await driver.fetch_all(uow.reads, select(ITEM.name).order_by(ITEM.name))
        assert [row.name for row in names] == ["Bug 0", "Bug 1", "Bug 2", "No due date"]
    with pytest.raises(ValueError, match="RETURNING"):
        async with factory.work() as uow:
            await driver.PreparedWrite(update(Item.__table__).returning(ITEM.id)).run_many(
                uow.reads, []
            )

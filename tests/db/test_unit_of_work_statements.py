"""The unit of work's data API: statements give what SQLAlchemy gives, whatever their shape, and
a unit's statements and entities are one transaction."""

import gc
import weakref
from datetime import UTC, datetime, timedelta

import pytest
from aiohttp.test_utils import TestClient
from sqlalchemy import Table, bindparam, delete, func, select, text, update

from bot.clock import FrozenClock
from bot.db.expressions import one_of, one_of_named
from bot.db.statements import Prepared
from bot.db.tables import Item, PendingEvent
from bot.db.types import timestamp_text
from tests.factories import Factory, create_item

ITEM = Item.__table__.c
COUNT = select(func.count()).select_from(Item)
NAMES = select(ITEM.name).order_by(ITEM.name)


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
    """What SQLAlchemy's session gives for `statement`, and what the unit's `rows` give."""
    async with factory.work() as uow:
        expected = [dict(row) for row in (await uow.session.execute(statement)).mappings()]
    async with factory.work(write=False) as uow:
        return expected, await uow.rows(statement)


async def _names(factory: Factory) -> list[str]:
    async with factory.work(write=False) as uow:
        return await uow.values(NAMES)


async def test_rows_hold_the_values_sqlalchemy_gives(factory: Factory, items: list[dict]) -> None:
    expected, rows = await _both(factory, select(*ITEM).order_by(ITEM.internal_id))
    assert rows == expected
    assert rows[0]["due_date"] == datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC)
    assert rows[0].due_date == rows[0]["due_date"]
    assert rows[-1]["due_date"] is None


async def test_a_statement_of_a_seen_shape_takes_its_own_values(
    factory: Factory, items: list[dict]
) -> None:
    after = datetime(2026, 12, 1, 12, tzinfo=UTC)
    for name in ("Bug 1", "Bug 2", "No due date"):
        expected, rows = await _both(factory, select(ITEM.name).where(ITEM.name == name))
        assert rows == expected == [{"name": name}]
    later = select(ITEM.name).where(ITEM.due_date > after).order_by(ITEM.name)
    expected, rows = await _both(factory, later)
    assert rows == expected == [{"name": "Bug 1"}, {"name": "Bug 2"}]


@pytest.mark.parametrize("match", ["one_of", "in_"])
async def test_a_list_of_values_matches_any_number_of_them(
    factory: Factory, items: list[dict], match: str
) -> None:
    ids = [item["_id"] for item in items]
    for chosen in ([], ids[:1], ids[1:3], ids, ["no-such-id"]):
        where = one_of(ITEM.id, chosen) if match == "one_of" else ITEM.id.in_(chosen)
        statement = select(ITEM.id).where(where, ITEM.name != "x").order_by(ITEM.id)
        expected, rows = await _both(factory, statement)
        assert [row["id"] for row in rows] == sorted(set(chosen) & set(ids))
        assert rows == expected


async def test_a_list_of_fifty_thousand_values_is_one_parameter_on_both_databases(
    factory: Factory, items: list[dict]
) -> None:
    ids = [item["_id"] for item in items]
    many = [f"{n:024x}" for n in range(50_000)] + ids[:2]
    async with factory.work(write=False) as uow:
        found = await uow.values(select(ITEM.id).where(one_of(ITEM.id, many)).order_by(ITEM.id))
    assert found == sorted(ids[:2])
    async with factory.work() as uow:
        await uow.execute(update(Item).where(one_of(ITEM.id, many)).values(name="Renamed"))
    assert await _names(factory) == ["Bug 2", "No due date", "Renamed", "Renamed"]


async def test_single_values_labels_and_nothing_found(factory: Factory, items: list[dict]) -> None:
    async with factory.work(write=False) as uow:
        assert await uow.value(COUNT) == 4
        row = await uow.row(select(ITEM.name.label("title")).limit(1))
        assert row is not None and set(row) == {"title"}
        assert await uow.row(select(ITEM.id).where(ITEM.id == "x")) is None
        assert await uow.value(select(ITEM.id).where(ITEM.id == "x")) is None


async def test_columns_of_the_same_name_must_be_labelled(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work(write=False) as uow:
        with pytest.raises(ValueError, match="label"):
            await uow.rows(select(ITEM.id, PendingEvent.__table__.c.id))


async def test_timestamps_read_as_the_apis_text(factory: Factory, items: list[dict]) -> None:
    shown = timestamp_text(ITEM.due_date).label("due")
    expected, rows = await _both(factory, select(shown).order_by(ITEM.internal_id))
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
        assert await uow.value(shown) == "2026-12-05T08:30:15.000Z"


async def test_writes_and_locks_belong_to_a_writing_unit(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work(write=False) as uow:
        with pytest.raises(RuntimeError, match="writes"):
            await uow.rows(select(ITEM.id).with_for_update())
        with pytest.raises(RuntimeError, match="writes"):
            await uow.execute(delete(Item))
        with pytest.raises(RuntimeError, match="writes"):
            await uow.hold("a lock")
    assert len(await _names(factory)) == 4


async def test_a_writing_unit_reads_its_own_writes_and_others_do_not(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work() as uow:
        gone = await uow.execute(delete(Item).where(ITEM.name == "No due date").returning(ITEM.id))
        assert [row.id for row in gone] == [items[-1]["_id"]]
        assert await uow.value(COUNT) == 3
        async with factory.work(write=False) as other:  # not committed yet: not seen
            assert await other.value(COUNT) == 4
    assert len(await _names(factory)) == 3


async def test_statements_and_entities_are_one_transaction(
    factory: Factory, items: list[dict]
) -> None:
    rename = Prepared(
        update(Item.__table__).where(ITEM.id == bindparam("item")).values(name=bindparam("name"))
    )
    first, second = items[0]["_id"], items[1]["_id"]

    async def renamed(entity_name: str, statement_name: str) -> None:
        async with factory.work() as uow:
            await uow.execute(rename, {"item": first, "name": statement_name})
            item = await uow.get(Item, second)
            assert item is not None
            item.name = entity_name  # pending until the next statement or the unit's end
            if entity_name == "fail":
                raise RuntimeError("roll back")

    with pytest.raises(RuntimeError):
        await renamed("fail", "Lost too")
    assert await _names(factory) == ["Bug 0", "Bug 1", "Bug 2", "No due date"]
    await renamed("By an entity", "By a statement")
    assert await _names(factory) == ["Bug 2", "By a statement", "By an entity", "No due date"]


async def test_a_statement_sees_what_the_units_entities_hold(
    factory: Factory, items: list[dict]
) -> None:
    async with factory.work() as uow:
        item = await uow.get(Item, items[0]["_id"])
        assert item is not None
        item.name = "Changed on the entity"
        found = await uow.value(select(ITEM.name).where(ITEM.id == items[0]["_id"]))
        assert found == "Changed on the entity"
        # And a write keeps the entity the unit holds in step.
        await uow.execute(update(Item).where(Item.id == item.id).values(name="Written"))
        assert item.name == "Written"
    assert "Written" in await _names(factory)


async def test_a_prepared_statement_takes_its_values_by_name(
    factory: Factory, items: list[dict]
) -> None:
    names = Prepared(
        select(ITEM.name).where(one_of_named(ITEM.id, "ids"), ITEM.due_date > bindparam("after"))
    )
    ids = [item["_id"] for item in items]
    after = datetime(2026, 12, 1, 12, tzinfo=UTC)
    async with factory.work(write=False) as uow:
        found = await uow.rows(names, {"ids": ids, "after": after})
        assert sorted(row["name"] for row in found) == ["Bug 1", "Bug 2"]
        found = await uow.rows(names, {"ids": ids[:2], "after": after})
        assert [row["name"] for row in found] == ["Bug 1"]
        assert await uow.row(names, {"ids": [], "after": after}) is None


async def test_a_write_returns_its_rows_and_rolls_back_with_its_unit(
    factory: Factory, items: list[dict]
) -> None:
    rename = Prepared(
        update(Item.__table__)
        .where(ITEM.id == bindparam("item"))
        .values(name=bindparam("new_name"))
        .returning(ITEM.name, ITEM.due_date)
    )
    first = items[0]["_id"]
    with pytest.raises(RuntimeError):
        async with factory.work() as uow:  # the write is its first statement
            rows = await uow.execute(rename, {"item": first, "new_name": "Renamed"})
            assert rows == [
                {
                    "name": "Renamed",
                    "due_date": datetime(2026, 12, 1, 8, 30, 15, 123456, tzinfo=UTC),
                }
            ]
            again = await uow.execute(rename, {"item": first, "new_name": "Twice"})
            assert [row.name for row in again] == ["Twice"]
            raise RuntimeError("roll back")
    assert "Bug 0" in await _names(factory)


async def test_plans_outlive_no_engine(db: str, clock: FrozenClock) -> None:
    # Apps and tests make and dispose engines; the statements prepared at import live on.
    count = Prepared(select(func.count()).select_from(Item))
    dialects = []
    for _ in range(2):
        async with Factory.open(db, clock) as factory:
            async with factory.work(write=False) as uow:
                assert await uow.value(count) == 0
                assert await uow.row(select(ITEM.id).limit(1)) is None
            dialects.append(weakref.ref(factory.engine.dialect))
        del factory, uow
    gc.collect()
    # One kind of dialect, one plan: the first engine's dialect may stay with it, no more.
    assert sum(ref() is not None for ref in dialects) <= 1


async def test_a_locking_read_holds_its_rows_until_the_unit_ends(
    factory: Factory, items: list[dict]
) -> None:
    locked = Prepared(
        select(ITEM.id, ITEM.due_date)
        .where(one_of_named(ITEM.id, "ids"))
        .order_by(ITEM.id)
        .with_for_update()
    )
    ids = sorted(item["_id"] for item in items[:2])
    async with factory.work() as uow:  # the lock is its first statement: it begins the unit
        rows = await uow.rows(locked, {"ids": ids})
        assert [row.id for row in rows] == ids
        assert rows[0].due_date is not None and rows[0].due_date.tzinfo is UTC
        await uow.execute(update(Item).where(Item.id == ids[0]).values(name="Locked"))
    assert "Locked" in await _names(factory)


async def test_a_write_runs_for_many_rows_and_rolls_back_with_its_unit(
    factory: Factory, items: list[dict]
) -> None:
    rename = Prepared(
        update(Item.__table__)
        .where(ITEM.id == bindparam("item"))
        .values(name=bindparam("new_name"), due_date=bindparam("due", type_=ITEM.due_date.type))
    )
    first, second = items[0]["_id"], items[1]["_id"]
    due = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    rows = [{"item": first, "new_name": "One"}, {"item": second, "new_name": "Two"}]
    with pytest.raises(RuntimeError):
        async with factory.work() as uow:  # the writes are its first statements
            await uow.execute_many(rename, rows, same={"due": due})
            async with factory.work(write=False) as other:  # not committed: not seen
                assert "Bug 0" in await other.values(NAMES)
            changed = await uow.rows(
                select(ITEM.name, ITEM.due_date).where(one_of(ITEM.id, [first, second]))
            )
            assert sorted((row.name, row.due_date) for row in changed) == [
                ("One", due),
                ("Two", due),
            ]
            raise RuntimeError("roll back")
    assert await _names(factory) == ["Bug 0", "Bug 1", "Bug 2", "No due date"]


async def test_many_rows_are_inserted_with_what_they_share(
    factory: Factory, items: list[dict]
) -> None:
    events = Table("pending_events", Item.metadata, extend_existing=True)
    occurred = datetime(2027, 1, 2, 3, 4, 5, tzinfo=UTC)
    async with factory.work() as uow:
        channel_id = await uow.value(select(ITEM.channel_id).limit(1))
        before = await uow.value(select(func.count()).select_from(events))
        same = {
            "channel_id": channel_id,
            "kind": "task",
            "trigger": "TEST",
            "actor_id": None,
            "occurred_at": occurred,
            "processed_at": None,
        }
        rows = [
            {"id": f"e{n}", "item_id": item["_id"], "payload": {"n": n, "quote": 'a "b"'}}
            for n, item in enumerate(items)
        ]
        await uow.insert_many(events, rows, same)
    async with factory.work(write=False) as uow:
        stored = await uow.rows(
            select(events.c.id, events.c.payload, events.c.occurred_at)
            .where(events.c.trigger == "TEST")
            .order_by(events.c.id)
        )
        assert await uow.value(select(func.count()).select_from(events)) == before + len(items)
    assert [row["payload"] for row in stored] == [row["payload"] for row in rows]
    assert {row["occurred_at"] for row in stored} == {occurred}

"""Next links by keyset, on both databases: walking every page of a list with nulls and ties gives
each row once, in OData's order (nulls before every value going up, after them going down; ties
by the key, the last sort key's way), whatever the page size and the sort."""

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, Text, select
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import create_engine
from bot.db.types import UTCDateTime
from bot.odata import keyset
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey
from bot.odata.query import apply, page, parse_query
from tests.odata.scratch import scratch_tables

metadata = MetaData()
rows_table = Table(
    "odata_paging",
    metadata,
    Column("id", String(24), primary_key=True),
    Column("due", UTCDateTime, nullable=True),
    Column("rank", Integer, nullable=False),
    Column("label", Text, nullable=True),
)
KEY = Property("_id", rows_table.c.id, PropertyKind.ID)
DUE = Property("dueDate", rows_table.c.due, PropertyKind.DATETIME)
ROWS = EntitySet(
    name="paging",
    properties={
        prop.name: prop
        for prop in (
            KEY,
            DUE,
            Property("rank", rows_table.c.rank, PropertyKind.INTEGER),
            Property("label", rows_table.c.label, PropertyKind.TEXT),
        )
    },
    key=KEY,
    default_order=(SortKey(DUE, descending=True),),
)
START = datetime(2026, 11, 1, tzinfo=UTC)
LABELS = ["b", "A", "a", "C"]  # A and a tie: text sorts ignoring case


def _rows() -> list[dict[str, Any]]:
    """37 rows: a third without a due date, the rest on four dates; ranks and labels repeat."""
    return [
        {
            "id": f"{number * 7919 % 1000:024x}",  # ids in another order than the numbers
            "due": None if number % 3 == 0 else START + timedelta(days=number % 4),
            "rank": number % 5,
            "label": None if number % 4 == 0 else LABELS[number % len(LABELS)],
        }
        for number in range(37)
    ]


@pytest.fixture(scope="module")
def paging_database(database_url: str) -> Iterator[str]:
    with scratch_tables(database_url, metadata, {rows_table: _rows()}) as url:
        yield url


@pytest.fixture
async def engine(paging_database: str) -> AsyncIterator[AsyncEngine]:
    made = create_engine(paging_database)
    try:
        yield made
    finally:
        await made.dispose()


async def walk(engine: AsyncEngine, options: dict[str, str], *, keyed: bool = True) -> list[str]:
    """The ids of every page, following the next token as the envelope makes it. Not `keyed`:
    as a list that reads no sort values would page after a token a client made."""
    seen: list[str] = []
    params = dict(options)
    async with engine.connect() as conn:
        for _ in range(100):  # bounded: a broken cursor must fail, not loop
            query = parse_query(params, ROWS)
            base = select(rows_table.c.id)
            if not keyed:  # the sort values read here only to make the next token
                base = base.add_columns(*keyset.sort_columns(query.order))
            fetched = (await conn.execute(apply(base, query, keyed=keyed))).all()
            rows, more = page([row._mapping for row in fetched], query)
            seen += [row["id"] for row in rows]
            if not more:
                return seen
            params[keyset.TOKEN] = keyset.encode(query.order, rows[-1])
    raise AssertionError("the next tokens never ended")


def odata_order(orderby: str | None) -> list[str]:
    """The ids in OData's order, worked out here: stable sorts from the last key to the first."""
    keys = [part.split() for part in (orderby or "dueDate desc").split(",")]
    names = {"dueDate": "due", "rank": "rank", "label": "label", "_id": "id"}
    sorted_by = [(names[key[0]], key[-1] == "desc") for key in keys]
    if ("id", False) not in sorted_by and ("id", True) not in sorted_by:
        sorted_by.append(("id", sorted_by[-1][1]))  # ties by the key, the last key's way
    rows = _rows()
    for column, descending in reversed(sorted_by):
        # Nulls first going up; reversed, they come last going down.
        rows.sort(key=lambda row: _nulls_first(row[column]), reverse=descending)
    return [row["id"] for row in rows]


def _nulls_first(value: object) -> tuple[bool, object]:
    if value is None:
        return (False, 0)
    return (True, value.lower() if isinstance(value, str) else value)


@pytest.mark.parametrize("top", ["1", "4", "7"])
@pytest.mark.parametrize(
    "orderby",
    [
        None,  # dueDate desc: the values going down, then the nulls
        "dueDate",  # the nulls first, then the values going up
        "label desc",
        "label",
        "rank",
        "rank desc",
        "dueDate desc,rank desc",
        "dueDate,label",  # a nullable key after the first
        "rank,dueDate desc",  # directions that differ
        "label desc,_id",
        "_id desc",
    ],
)
async def test_every_page_by_next_token_gives_each_row_once_in_odata_order(
    engine: AsyncEngine, orderby: str | None, top: str
) -> None:
    options = {"$top": top} | ({"$orderby": orderby} if orderby else {})
    paged = await walk(engine, options)
    assert paged == odata_order(orderby)
    assert len(set(paged)) == len(paged) == 37


async def test_due_dates_going_down_end_with_the_rows_without_one(engine: AsyncEngine) -> None:
    paged = await walk(engine, {"$top": "5"})
    dues = {row["id"]: row["due"] for row in _rows()}
    dated = [dues[row_id] for row_id in paged if dues[row_id] is not None]
    assert dated == sorted(dated, reverse=True)
    assert [dues[row_id] for row_id in paged[len(dated) :]] == [None] * 13
    undated = paged[len(dated) :]
    assert undated == sorted(undated, reverse=True)  # ties by id, going down too


@pytest.mark.parametrize("orderby", [None, "dueDate"])
async def test_a_list_without_sort_values_pages_after_a_token_in_the_same_order(
    engine: AsyncEngine, orderby: str | None
) -> None:
    """Without the sort values among its columns a list cannot merge two ranges: one OR instead."""
    options = {"$top": "4"} | ({"$orderby": orderby} if orderby else {})
    assert await walk(engine, options, keyed=False) == odata_order(orderby)

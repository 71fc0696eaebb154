"""A page after a next link's cursor reads one or two ranges of an index, with no sort, on both
databases: the plans of the item lists' and the personal list's own statements, as the app
builds them, over a few thousand items (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: the generic plan
a prepared statement with bound values ends up with)."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import ClauseElement, Executable, Select, insert, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from bot.clock import FrozenClock
from bot.db.engine import create_engine
from bot.db.tables import Channel, Item, ItemAssignee, Project
from bot.ids import new_id
from bot.items.queries import LISTS
from bot.items.read import items_statement
from bot.me.queries import my_items, my_items_statement
from bot.odata import keyset
from bot.odata.model import EntitySet, PropertyKind
from bot.odata.query import apply, parse_query
from bot.schemas import ItemKind
from tests import databases
from tests.factories import CHANNEL, Factory

ITEMS = 20_000
START = datetime(2026, 11, 1, tzinfo=UTC)
STATUSES = ["Not Started", "In Progress", "Completed", "Not Started"]
PRIORITIES = ["Urgent", "High", "Normal", "Low"]


class _ExplainQueryPlan(Executable, ClauseElement):
    """SQLite's EXPLAIN QUERY PLAN of a statement, run with the statement's own parameters."""

    inherit_cache = False

    def __init__(self, statement: Select[Any]) -> None:
        self.statement = statement


@compiles(_ExplainQueryPlan)
def _explain(element: _ExplainQueryPlan, compiler: SQLCompiler, **kw: Any) -> str:
    return "EXPLAIN QUERY PLAN " + compiler.process(element.statement, **kw)


@dataclass(frozen=True)
class Case:
    """A page after a cursor, and the index range (SQLite's words) it must read."""

    orderby: str | None
    cursor: str  # "null" or "value": what the cursor's first sort value is
    index: str  # without PostgreSQL's "_nulls_first"
    ranges: tuple[str, ...]  # each part's condition as SQLite prints it
    filter: str | None = None


_DUE_ORDER = "ix_items_channel_id_kind_due_date_id"
CASES = {
    "the default order (newest first), any page": Case(
        None, "value", "ix_items_channel_id_kind_created_at_id", ("(created_at,id)<(?,?)",)
    ),
    "dueDate desc, the last pages (nulls, ties by id going down)": Case(
        "dueDate desc", "null", _DUE_ORDER, ("due_date=? AND id<?",)
    ),
    "dueDate desc, the pages with dates (then every null)": Case(
        "dueDate desc", "value", _DUE_ORDER, ("(due_date,id)<(?,?)", "due_date=?")
    ),
    "dueDate asc, the first pages (nulls, then every date)": Case(
        "dueDate", "null", _DUE_ORDER, ("due_date=? AND id>?", "due_date>?")
    ),
    "dueDate asc, the pages with dates": Case(
        "dueDate", "value", _DUE_ORDER, ("(due_date,id)>(?,?)",)
    ),
    "In Progress by dueDate desc, the pages with dates": Case(
        "dueDate desc",
        "value",
        "ix_items_channel_id_kind_status_due_date_id",
        ("status=? AND (due_date,id)<(?,?)", "status=? AND due_date=?"),
        filter="status eq 'In Progress'",
    ),
}


@dataclass(frozen=True)
class Listed:
    channel_id: str
    user_id: str  # every item is assigned to them


@pytest.fixture(scope="module")
def listed(database_url: str) -> Listed:
    """ITEMS bugs in the test channel, all assigned to its member, analyzed as autovacuum would."""
    return asyncio.run(_fill(database_url))


@pytest.fixture
async def engine(listed: Listed, database_url: str) -> AsyncIterator[AsyncEngine]:
    made = create_engine(database_url)
    try:
        yield made
    finally:
        await made.dispose()


async def _fill(url: str) -> Listed:
    await databases.empty_all_tables(url)
    async with Factory.open(url, FrozenClock(START)) as factory:
        ada = await factory.member()
        async with factory.engine.begin() as conn:
            channel_id = await conn.scalar(select(Channel.id).where(Channel.teams_id == CHANNEL))
            project = await conn.scalar(select(Project.id).where(Project.channel_id == channel_id))
            items = [_item(number, channel_id, project) for number in range(ITEMS)]
            await conn.execute(insert(Item), items)
            assigned = [_assignment(item, ada.user.id) for item in items]
            await conn.execute(insert(ItemAssignee), assigned)
            if conn.dialect.name == "sqlite":
                await conn.execute(text("ANALYZE"))
            else:
                await conn.execute(text("ANALYZE items"))
                await conn.execute(text("ANALYZE item_assignees"))
    return Listed(channel_id, ada.user.id)


def _item(number: int, channel_id: str, project_id: str) -> dict[str, Any]:
    at = START + timedelta(minutes=number // 2)  # pairs share their creation time
    item_id = new_id()
    return {
        "id": item_id,
        "channel_id": channel_id,
        "kind": "bug",
        "internal_id": number + 1,
        "name": f"Bug {number}",
        "status": STATUSES[number % len(STATUSES)],
        "priority": PRIORITIES[number * 7 % len(PRIORITIES)],
        "severity": None if number % 3 == 0 else PRIORITIES[number % len(PRIORITIES)],
        "project_id": project_id,
        "source": "Svc.Native",
        "source_id": item_id,
        "due_date": None if number % 50 == 0 else START + timedelta(hours=number * 7 % 500),
        "bucket": [],
        "sync_at": at,
        "created_at": at,
        "updated_at": at + timedelta(minutes=number * 13 % 997),
    }


def _assignment(item: dict[str, Any], user_id: str) -> dict[str, Any]:
    return {
        "item_id": item["id"],
        "user_id": user_id,
        "position": 0,
        "kind": item["kind"],
        "channel_id": item["channel_id"],
        "created_at": item["created_at"],
    }


def _after_cursor(
    statement: Select[Any], entity: EntitySet, case: Case, first_value: object
) -> Select[Any]:
    """`statement` paged as a next link with this cursor asks (a second value from an id)."""
    options = {"$top": "50"}
    options |= {"$orderby": case.orderby} if case.orderby else {}
    options |= {"$filter": case.filter} if case.filter else {}
    order = parse_query(options, entity).order
    cursor = {"_sort0": first_value, "_sort1": "6b0288328ad6cb673c75996d"}
    query = parse_query({**options, keyset.TOKEN: keyset.encode(order, cursor)}, entity)
    return apply(statement, query, keyed=True)


async def plan(conn: AsyncConnection, statement: Select[Any]) -> list[str]:
    """The plan's lines: SQLite's EXPLAIN QUERY PLAN, or PostgreSQL's generic plan."""
    if conn.dialect.name == "sqlite":
        return [row.detail for row in await conn.execute(_ExplainQueryPlan(statement))]
    compiled = statement.compile(dialect=conn.dialect)
    values = ", ".join(_literal(compiled.params[name]) for name in compiled.positiontup or ())
    await conn.exec_driver_sql(f"PREPARE page AS {compiled}")
    await conn.exec_driver_sql("SET plan_cache_mode = force_generic_plan")
    lines = (await conn.exec_driver_sql(f"EXPLAIN EXECUTE page({values})")).scalars().all()
    await conn.exec_driver_sql("DEALLOCATE page")
    return list(lines)


def _literal(value: object) -> str:
    if isinstance(value, datetime):
        return f"'{value.isoformat()}'"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return str(value)


def assert_reads_ranges(
    lines: list[str], dialect: str, index: str, ranges: tuple[str, ...]
) -> None:
    """Every part of the plan reads `index` by a range and nothing is sorted."""
    joined = "\n".join(lines)
    if dialect == "sqlite":
        assert "TEMP B-TREE" not in joined, joined
        assert not any(line.startswith(("SCAN items", "SCAN item_assignees")) for line in lines)
        for condition in ranges:
            assert f"INDEX {index} (channel_id=? AND kind=? AND {condition})" in joined, joined
        return
    index = index.replace("due_date", "due_date_nulls_first")
    assert "Seq Scan" not in joined, joined
    assert not any("Sort  (cost" in line for line in lines), joined  # a Merge Append's key is fine
    assert joined.count(f"using {index} on items") == len(ranges), joined
    # The conditions of the scans of items (each row's assignees are then read by its id).
    index_conditions = [
        following
        for line, following in zip(lines, lines[1:], strict=False)
        if " on items " in f"{line} " and "Index Cond" in following
    ]
    assert len(index_conditions) == len(ranges), joined
    assert all(
        "ROW(" in line or "IS NULL" in line or "IS NOT NULL" in line for line in index_conditions
    )


@pytest.mark.parametrize("name", list(CASES))
async def test_a_page_after_a_cursor_reads_index_ranges_without_sorting(
    engine: AsyncEngine, listed: Listed, name: str
) -> None:
    case = CASES[name]
    first_value = None if case.cursor == "null" else START + timedelta(hours=3)
    statement = _after_cursor(
        items_statement(listed.channel_id, ItemKind.BUG), LISTS[ItemKind.BUG], case, first_value
    )
    async with engine.connect() as conn:
        lines = await plan(conn, statement)
        assert_reads_ranges(lines, conn.dialect.name, case.index, case.ranges)


async def test_the_personal_default_order_reads_its_index_range_without_sorting(
    engine: AsyncEngine, listed: Listed
) -> None:
    case = Case(None, "value", "ix_item_assignees_personal_order", ())
    statement = _after_cursor(
        my_items_statement(listed.user_id, ItemKind.BUG), my_items(ItemKind.BUG), case, START
    )
    async with engine.connect() as conn:
        lines = await plan(conn, statement)
    joined = "\n".join(lines)
    if conn.dialect.name == "sqlite":
        assert "TEMP B-TREE" not in joined, joined
        range_read = "INDEX ix_item_assignees_personal_order (user_id=? AND kind=? AND "
        assert range_read + "(created_at,item_id)<(?,?))" in joined, joined
    else:
        assert not any("Sort  (cost" in line for line in lines), joined
        assert "Index Only Scan Backward using ix_item_assignees_personal_order" in joined
        assert "ROW(created_at, item_id) < ROW(" in joined, joined


# Every field a list sorts by without sorting rows: a page of it, either way, first or after a
# cursor, reads one index range (two around a nullable key's nulls) forwards or backwards.
# Numbers are unique per channel and kind: their unique constraint's index, with no tie-breaker.
SORT_INDEXES = {
    "createdAt": "ix_items_channel_id_kind_created_at_id",
    "updatedAt": "ix_items_channel_id_kind_updated_at_id",
    "dueDate": _DUE_ORDER,
    "internalId": "uq_items_channel_id_kind_internal_id",
    "name": "ix_items_channel_id_kind_name_key_id",  # the folded name kept on the row
}
_SQLITE_NAMES = {"uq_items_channel_id_kind_internal_id": "sqlite_autoindex_items_2"}
# The other sortable fields: a page sorts the channel's rows of the kind, one pass and a top-N
# sort (bounded by the statement timeout; docs/BENCHMARKS.md has their figures over 100k bugs).
# (`_id`: the channel's items by id, read in order; no sort.)
SORTED = sorted(
    name
    for name, prop in LISTS[ItemKind.BUG].properties.items()
    if prop.sortable and name not in {*SORT_INDEXES, "_id"}
)
# Filters read in an index's order, the rows they keep checked one by one: a page reads about
# a page divided by the share that matches (a quarter here), with no sort.
FILTERED = {
    ("priority eq 'High'", "internalId desc"): "uq_items_channel_id_kind_internal_id",
    ("severity eq 'Low'", None): "ix_items_channel_id_kind_created_at_id",
    ("contains(name, '1')", "updatedAt desc"): "ix_items_channel_id_kind_updated_at_id",
    ("priority eq 'Low' and status eq 'Completed'", "dueDate desc"): (
        "ix_items_channel_id_kind_status_due_date_id"
    ),
}
_CURSOR_VALUES = {
    PropertyKind.DATETIME: START + timedelta(hours=3),
    PropertyKind.INTEGER: ITEMS // 2,
    PropertyKind.NAME: "in progress",
    PropertyKind.TEXT: "bug 5",
    PropertyKind.ID: "6b0288328ad6cb673c75996d",
}


def _page(listed: Listed, orderby: str | None, filter_: str | None, cursor: bool) -> Select[Any]:
    """A list's page statement as the app builds it: the first page, or one after a cursor."""
    entity = LISTS[ItemKind.BUG]
    options = {"$top": "50"}
    options |= {"$orderby": orderby} if orderby else {}
    options |= {"$filter": filter_} if filter_ else {}
    query = parse_query(options, entity)
    if cursor:
        values = [_CURSOR_VALUES[key.property.kind] for key in query.order]
        row = {f"_sort{index}": value for index, value in enumerate(values)}
        query = parse_query({**options, keyset.TOKEN: keyset.encode(query.order, row)}, entity)
    return apply(items_statement(listed.channel_id, ItemKind.BUG), query, keyed=True)


def assert_reads_in_order(lines: list[str], dialect: str, index: str) -> None:
    """Every read of items goes through `index` within the channel and kind; nothing sorted."""
    joined = "\n".join(lines)
    if dialect == "sqlite":
        index = _SQLITE_NAMES.get(index, index)
        assert "TEMP B-TREE" not in joined, joined
        reads = [line for line in lines if line.startswith(("SEARCH items", "SCAN items"))]
        assert reads, joined
        for read in reads:
            assert f"INDEX {index} (channel_id=? AND kind=?" in read, joined
        return
    index = index.replace("due_date", "due_date_nulls_first")
    assert "Seq Scan" not in joined and "Bitmap" not in joined, joined
    assert not any("Sort  (cost" in line for line in lines), joined
    scans = [line for line in lines if " on items " in f"{line} "]
    assert scans and all(f"using {index} on items" in line for line in scans), joined


@pytest.mark.parametrize("cursor", [False, True], ids=["first page", "after a cursor"])
@pytest.mark.parametrize("direction", ["asc", "desc"])
@pytest.mark.parametrize("field", list(SORT_INDEXES))
async def test_a_page_of_an_indexed_sort_reads_its_index_in_order(
    engine: AsyncEngine, listed: Listed, field: str, direction: str, cursor: bool
) -> None:
    statement = _page(listed, f"{field} {direction}", None, cursor)
    async with engine.connect() as conn:
        lines = await plan(conn, statement)
        assert_reads_in_order(lines, conn.dialect.name, SORT_INDEXES[field])


def test_sorted_by_a_unique_number_a_list_adds_no_tie_breaker() -> None:
    order = parse_query({"$orderby": "internalId desc"}, LISTS[ItemKind.BUG]).order
    assert [(key.property.name, key.descending) for key in order] == [("internalId", True)]
    order = parse_query({"$orderby": "dueDate desc"}, LISTS[ItemKind.BUG]).order
    assert [key.property.name for key in order] == ["dueDate", "_id"]


@pytest.mark.parametrize(("filter_", "orderby"), list(FILTERED))
async def test_a_filtered_page_reads_an_index_in_order(
    engine: AsyncEngine, listed: Listed, filter_: str, orderby: str | None
) -> None:
    statement = _page(listed, orderby, filter_, cursor=False)
    async with engine.connect() as conn:
        lines = await plan(conn, statement)
        assert_reads_in_order(lines, conn.dialect.name, FILTERED[filter_, orderby])


@pytest.mark.parametrize("cursor", [False, True], ids=["first page", "after a cursor"])
@pytest.mark.parametrize("field", SORTED)
async def test_a_page_of_another_sort_sorts_the_channels_rows_once(
    engine: AsyncEngine, listed: Listed, field: str, cursor: bool
) -> None:
    statement = _page(listed, f"{field} desc", None, cursor)
    async with engine.connect() as conn:
        assert_sorts_the_page(await plan(conn, statement), conn.dialect.name)


def assert_sorts_the_page(lines: list[str], dialect: str) -> None:
    """The plan sorts (a top-N sort on PostgreSQL: only the page is kept)."""
    joined = "\n".join(lines)
    if dialect == "sqlite":  # all of the order, or its part after a column's
        assert "USE TEMP B-TREE FOR" in joined and "ORDER BY" in joined, joined
    else:
        assert any("Sort  (cost" in line for line in lines), joined
        assert lines[0].startswith("Limit"), joined


@pytest.mark.parametrize("cursor", [False, True], ids=["first page", "after a cursor"])
async def test_a_page_by_id_reads_the_channels_ids_in_order(
    engine: AsyncEngine, listed: Listed, cursor: bool
) -> None:
    statement = _page(listed, "_id desc", None, cursor)
    async with engine.connect() as conn:
        lines = await plan(conn, statement)
        joined = "\n".join(lines)
        if conn.dialect.name == "sqlite":
            assert (
                "TEMP B-TREE" not in joined
                and "items USING INDEX ix_items_channel_id_kind_id" in joined
            ), joined
        else:
            assert not any("Sort  (cost" in line for line in lines), joined
            # PostgreSQL may walk the primary key instead when one channel holds every item.
            by_id = ("using ix_items_channel_id_kind_id on items", "using pk_items on items")
            assert any(index in joined for index in by_id), joined

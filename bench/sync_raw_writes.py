"""The raw driver's ceiling for an import's writes (`sync_import`): the rows the app's import
wrote for one project (its items, their assignees, their sync records), read back and deleted
(not timed), then written again as the import writes them, a page a transaction: the channel's
counter taken for the page's items of each kind (`UPDATE … RETURNING`), one `executemany` per
table, the project's sync row's cursor moved; straight through sqlite3 (which the app, too,
calls inline) or asyncpg. Whatever the app does around its writes, it cannot import faster than
the source's pages and these."""

import sqlite3
import time
from collections.abc import Sequence
from typing import Any, cast

import asyncpg
from sqlalchemy import Table

from bot.db.tables import Item, ItemAssignee, SyncRecord

# Written in this order (an assignee's and a record's item first).
TABLES = [cast(Table, table.__table__) for table in (Item, ItemAssignee, SyncRecord)]
TAKE = (
    "UPDATE item_counters SET last_internal_id = last_internal_id + {n} "
    "WHERE channel_id = {channel} AND kind = {kind} RETURNING last_internal_id"
)
MOVE = "UPDATE project_syncs SET import_cursor = {cursor} WHERE project_id = {project}"


async def write_again(url: str, project_id: str, page: int) -> float:
    """The seconds the raw driver takes to write the project's imported rows again, `page`
    items a transaction."""
    if url.startswith("sqlite"):
        return _sqlite(url.split(":///", 1)[1], project_id, page)
    return await _postgresql(url.replace("+asyncpg", ""), project_id, page)


def _columns(table: Table) -> list[str]:
    return [column.name for column in table.columns if column.computed is None]


def _pages(rows: dict[str, list[tuple[Any, ...]]], page: int) -> list[dict[str, Any]]:
    """The rows grouped as the import wrote them: its items in number order, `page` at a time,
    each page with its items' assignees and records and how many of each kind it numbers."""
    items = rows["items"]
    kind_at = _columns(TABLES[0]).index("kind")
    pages = []
    for start in range(0, len(items), page):
        chunk = items[start : start + page]
        ids = {row[0] for row in chunk}
        kinds: dict[str, int] = {}
        for row in chunk:
            kinds[row[kind_at]] = kinds.get(row[kind_at], 0) + 1
        pages.append(
            {
                "items": chunk,
                "item_assignees": [row for row in rows["item_assignees"] if row[0] in ids],
                "sync_records": [row for row in rows["sync_records"] if row[0] in ids],
                "kinds": kinds,
            }
        )
    return pages


def _read_sql(table: Table, marker: str) -> str:
    columns = ", ".join(f'"{name}"' for name in _columns(table))
    if table.name == "items":
        return f"SELECT {columns} FROM items WHERE project_id = {marker} ORDER BY internal_id"
    return (
        f"SELECT {columns} FROM {table.name} WHERE item_id IN "
        f"(SELECT id FROM items WHERE project_id = {marker})"
    )


def _delete_sql(table: Table, marker: str) -> str:
    if table.name == "items":
        return f"DELETE FROM items WHERE project_id = {marker}"
    return (
        f"DELETE FROM {table.name} WHERE item_id IN "
        f"(SELECT id FROM items WHERE project_id = {marker})"
    )


def _insert_sql(table: Table, markers: Sequence[str]) -> str:
    columns = ", ".join(f'"{name}"' for name in _columns(table))
    return f"INSERT INTO {table.name} ({columns}) VALUES ({', '.join(markers)})"


def _sqlite(path: str, project_id: str, page: int) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for pragma in ("busy_timeout=5000", "foreign_keys=ON", "synchronous=NORMAL"):
            db.execute(f"PRAGMA {pragma}")
        rows = {
            table.name: db.execute(_read_sql(table, "?"), (project_id,)).fetchall()
            for table in TABLES
        }
        channel = rows["items"][0][_columns(TABLES[0]).index("channel_id")]
        db.execute("BEGIN IMMEDIATE")
        for table in reversed(TABLES):
            db.execute(_delete_sql(table, "?"), (project_id,))
        db.execute("COMMIT")
        inserts = {t.name: _insert_sql(t, ["?"] * len(_columns(t))) for t in TABLES}
        take = TAKE.format(n="?", channel="?", kind="?")
        move = MOVE.format(cursor="?", project="?")
        started = time.perf_counter()
        for number, chunk in enumerate(_pages(rows, page)):
            db.execute("BEGIN IMMEDIATE")
            for kind, count in chunk["kinds"].items():
                db.execute(take, (count, channel, kind)).fetchall()
            for table in TABLES:
                db.executemany(inserts[table.name], chunk[table.name])
            db.execute(move, (f"page {number}", project_id))
            db.execute("COMMIT")
        return time.perf_counter() - started
    finally:
        db.close()


async def _postgresql(url: str, project_id: str, page: int) -> float:
    connection = await asyncpg.connect(url)
    try:
        rows = {
            table.name: [
                tuple(row) for row in await connection.fetch(_read_sql(table, "$1"), project_id)
            ]
            for table in TABLES
        }
        channel = rows["items"][0][_columns(TABLES[0]).index("channel_id")]
        async with connection.transaction():
            for table in reversed(TABLES):
                await connection.execute(_delete_sql(table, "$1"), project_id)
        inserts = {
            t.name: _insert_sql(t, [f"${n + 1}" for n in range(len(_columns(t)))]) for t in TABLES
        }
        take = TAKE.format(n="$1", channel="$2", kind="$3")
        move = MOVE.format(cursor="$1", project="$2")
        started = time.perf_counter()
        for number, chunk in enumerate(_pages(rows, page)):
            async with connection.transaction():
                for kind, count in chunk["kinds"].items():
                    await connection.fetch(take, count, channel, kind)
                for table in TABLES:
                    if chunk[table.name]:
                        await connection.executemany(inserts[table.name], chunk[table.name])
                await connection.execute(move, f"page {number}", project_id)
        return time.perf_counter() - started
    finally:
        await connection.close()

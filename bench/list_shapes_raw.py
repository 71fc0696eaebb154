"""The raw driver's ceiling of each list shape: the page statement the app runs for it (compiled
from the app's own query code, its values bound as the app binds them), run by `sqlite3` or
asyncpg in this process, one at a time; its p50 is the database's share of the shape's time.

The count is left out: the app caches it per channel version, so a repeated list reads only its
page (filters that read the users excepted, see `bot/items/versions.py`).
"""

import asyncio
import sqlite3
import statistics
import time
import urllib.parse
from collections.abc import Callable
from functools import partial
from typing import Any

import asyncpg
from sqlalchemy import Select
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as SQLiteDialect
from sqlalchemy.engine import Dialect

from bot.db.text import register_sqlite_functions
from bot.items.queries import entity_set
from bot.items.read import items_statement
from bot.odata.query import apply, parse_query
from bot.schemas import ItemKind


def page_statement(path: str, channel_id: str) -> Select[Any]:
    """The page statement the app runs for a list's path (its next-link token included)."""
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query))
    query = parse_query(params, entity_set(ItemKind.BUG))
    return apply(items_statement(channel_id, ItemKind.BUG), query, keyed=True)


def _compiled(statement: Select[Any], dialect: Dialect) -> tuple[str, list[Any]]:
    """The SQL and its positional values, each converted as the app's driver would get it."""
    compiled = statement.compile(dialect=dialect)
    values = compiled.construct_params()
    processors = compiled._bind_processors
    args = []
    for name in compiled.positiontup or ():
        value = values[name]
        processor = processors.get(name)
        args.append(processor(value) if processor and value is not None else value)
    return compiled.string, args


def p50s_ms(
    database_url: str, teams_channel_id: str, paths: dict[str, str], seconds: float
) -> dict[str, float]:
    """Each path's page statement's p50 through the raw driver, in milliseconds."""
    if database_url.startswith("sqlite"):
        return _sqlite(database_url.split(":///", 1)[1], teams_channel_id, paths, seconds)
    dsn = database_url.replace("postgresql+asyncpg", "postgresql")
    return asyncio.run(_postgres(dsn, teams_channel_id, paths, seconds))


def _sqlite(
    path: str, teams_channel_id: str, paths: dict[str, str], seconds: float
) -> dict[str, float]:
    connection = sqlite3.connect(path, isolation_level=None)
    register_sqlite_functions(connection)
    connection.execute("PRAGMA foreign_keys=ON")
    (channel_id,) = connection.execute(
        "SELECT id FROM channels WHERE teams_id = ?", [teams_channel_id]
    ).fetchone()
    results = {}
    for name, shape_path in paths.items():
        sql, args = _compiled(page_statement(shape_path, channel_id), SQLiteDialect())
        results[name] = _p50(partial(_fetch, connection, sql, args), seconds)
    connection.close()
    return results


async def _postgres(
    dsn: str, teams_channel_id: str, paths: dict[str, str], seconds: float
) -> dict[str, float]:
    connection = await asyncpg.connect(dsn)
    try:
        channel_id = await connection.fetchval(
            "SELECT id FROM channels WHERE teams_id = $1", teams_channel_id
        )
        results = {}
        for name, shape_path in paths.items():
            sql, args = _compiled(page_statement(shape_path, channel_id), PGDialect_asyncpg())
            prepared = await connection.prepare(sql)
            times: list[float] = []
            ends = time.perf_counter() + seconds
            while len(times) < 5 or time.perf_counter() < ends:
                started = time.perf_counter()
                await prepared.fetch(*args)
                times.append((time.perf_counter() - started) * 1000)
            results[name] = statistics.median(times)
        return results
    finally:
        await connection.close()


def _fetch(connection: sqlite3.Connection, sql: str, args: list[Any]) -> list[Any]:
    return connection.execute(sql, args).fetchall()


def _p50(run: Callable[[], Any], seconds: float) -> float:
    run()
    times: list[float] = []
    ends = time.perf_counter() + seconds
    while len(times) < 5 or time.perf_counter() < ends:
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)

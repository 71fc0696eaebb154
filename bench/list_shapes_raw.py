"""The raw driver's ceiling of each list shape: the page statement the app runs for it (compiled
from the app's own query code, its values bound as the app binds them), run by `sqlite3` or
asyncpg in this process, one at a time; its p50 is the database's share of the shape's time.

The count is left out: the app caches it per channel version, so a repeated list reads only its
page (filters that read the users excepted, see `bot/items/versions.py`). So are the names a
list sorted by status, priority or severity reads value by value (`bot/items/value_sorts.py`):
the app caches them too; the value's statements are run one after another as the app runs them.
"""

import asyncio
import sqlite3
import statistics
import time
import urllib.parse
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from typing import Any

import asyncpg
from sqlalchemy import Select, bindparam
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as SQLiteDialect
from sqlalchemy.engine import Dialect

from bot.db.text import register_sqlite_functions
from bot.items import value_sorts
from bot.items.queries import entity_set
from bot.items.read import items_statement
from bot.odata.query import Query, apply, parse_query
from bot.schemas import ItemKind


def _query(path: str) -> Query:
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(path).query))
    return parse_query(params, entity_set(ItemKind.BUG))


def page_statement(path: str, channel_id: str) -> Select[Any]:
    """The page statement the app runs for a list's path (its next-link token included)."""
    return apply(items_statement(channel_id, ItemKind.BUG), _query(path), keyed=True)


@dataclass(frozen=True)
class _Part:
    """One statement of a page, compiled: its SQL, its values, where its limit is among them."""

    sql: str
    args: list[Any]
    limit_at: int | None = None


_PAGES = value_sorts.ValueSortedPages()


def _plan(path: str, channel_id: str, dialect: Dialect, run: Callable[..., Any]) -> list[_Part]:
    """The statements the app runs for `path`: one, or a value-sorted list's, one a value in the
    page's order (their names read here, once, by `run`: the app caches them)."""
    query = _query(path)
    field = value_sorts.sorted_field(query)
    if field is None:
        return [_Part(*_compiled(page_statement(path, channel_id), dialect))]
    here = {"channel_id": channel_id}
    named = run(*_compiled(_PAGES.names(ItemKind.BUG, field).statement, dialect, here))
    groups = value_sorts.grouped([{"name": name, "folded": key} for name, key, *_ in named])
    parts = []
    for group, after in value_sorts.walk(groups, query):
        prepared, values = _PAGES.part(
            (ItemKind.BUG, True, field),
            query,
            group,
            after,
            lambda: items_statement(bindparam("channel_id"), ItemKind.BUG),
            tuple,
        )
        values = {**here, **values, value_sorts.LIMIT: 0}
        sql, args, names = _compiled_named(prepared.statement, dialect, values)
        parts.append(_Part(sql, args, names.index(value_sorts.LIMIT)))
    return parts


def _walked(parts: list[_Part], wanted: int) -> Generator[tuple[str, list[Any]], int, None]:
    """Each part's SQL and values with its limit, as long as the page wants rows (`send` the
    number each gave, as the app reads them one after another)."""
    for part in parts:
        if part.limit_at is None:
            yield part.sql, part.args
            return
        args = list(part.args)
        args[part.limit_at] = wanted
        wanted -= yield part.sql, args
        if wanted <= 0:
            return


def _compiled(
    statement: Any, dialect: Dialect, given: dict[str, Any] | None = None
) -> tuple[str, list[Any]]:
    """The SQL and its positional values, each converted as the app's driver would get it."""
    sql, args, _names = _compiled_named(statement, dialect, given)
    return sql, args


def _compiled_named(
    statement: Any, dialect: Dialect, given: dict[str, Any] | None
) -> tuple[str, list[Any], list[str]]:
    compiled = statement.compile(dialect=dialect)
    values = compiled.construct_params(given)
    processors = compiled._bind_processors
    args = []
    for name in compiled.positiontup or ():
        value = values[name]
        processor = processors.get(name)
        args.append(processor(value) if processor and value is not None else value)
    return compiled.string, args, list(compiled.positiontup or ())


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
        parts = _plan(shape_path, channel_id, SQLiteDialect(), partial(_fetch, connection))
        wanted = _query(shape_path).skip + _query(shape_path).top + 1
        results[name] = _p50(partial(_fetch_page, connection, parts, wanted), seconds)
    connection.close()
    return results


def _fetch_page(connection: sqlite3.Connection, parts: list[_Part], wanted: int) -> None:
    walked = _walked(parts, wanted)
    try:
        sql, args = next(walked)
        while True:
            sql, args = walked.send(len(_fetch(connection, sql, args)))
    except StopIteration:
        return


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
            names: list[Any] = []

            def run(sql: str, args: list[Any], into: list[Any] = names) -> list[Any]:
                into.append((sql, args))
                return []

            # The names a value-sorted list walks are read first (asyncpg is async: twice).
            _plan(shape_path, channel_id, PGDialect_asyncpg(), run)
            named = [
                tuple(row) for sql, args in names for row in await connection.fetch(sql, *args)
            ]
            parts = _plan(shape_path, channel_id, PGDialect_asyncpg(), partial(_given, named))
            prepared = {part.sql: await connection.prepare(part.sql) for part in parts}
            wanted = _query(shape_path).skip + _query(shape_path).top + 1
            times: list[float] = []
            ends = time.perf_counter() + seconds
            while len(times) < 5 or time.perf_counter() < ends:
                started = time.perf_counter()
                walked = _walked(parts, wanted)
                try:
                    sql, args = next(walked)
                    while True:
                        sql, args = walked.send(len(await prepared[sql].fetch(*args)))
                except StopIteration:
                    pass
                times.append((time.perf_counter() - started) * 1000)
            results[name] = statistics.median(times)
        return results
    finally:
        await connection.close()


def _given(rows: list[Any], *_statement: Any) -> list[Any]:
    return rows


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

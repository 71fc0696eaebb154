"""The private parts of SQLAlchemy that `bot.db` uses, one test each, as `bot.db` uses them.

They are no API: any release may rename or reshape them. `pyproject.toml` pins SQLAlchemy to the
minor version they were checked against; a failure here after an upgrade names the symbol and
the module of ours to change before the pin may move.
"""

import inspect
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, select, update
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.postgresql import asyncpg
from sqlalchemy.dialects.sqlite import aiosqlite as sqlalchemy_aiosqlite
from sqlalchemy.sql.cache_key import CacheKey
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.util import greenlet_spawn

from bot.db import sqlite_inline
from bot.db.engine import create_engine
from bot.db.expressions import OrderedList, json_object, minutes_after, one_of, random_hex
from bot.db.tables import Item
from bot.db.types import timestamp_text

PIN = '"sqlalchemy[asyncio]>=2.1.9,<2.2" in pyproject.toml'

notes = Table(
    "notes",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("body", String),
    Column("other", String),
    Column("position", Integer),
)
other_notes = notes.alias("other_notes")
DIALECTS = [sqlite.dialect(), asyncpg.dialect()]  # the drivers `bot.db.driver` runs on


def _changed(symbol: str, ours: str) -> str:
    return (
        f"SQLAlchemy {sqlalchemy.__version__} changed {symbol}, which {ours} uses: "
        f"adapt {ours}, then revisit the pin {PIN}"
    )


def _compiled(statement: Any, dialect: Any, key: CacheKey | None = None) -> SQLCompiler:
    compiled = statement.compile(dialect=dialect, cache_key=key)
    assert isinstance(compiled, SQLCompiler)
    return compiled


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda dialect: dialect.name)
def test_an_in_list_expands_by_the_compilers_post_compile_step(dialect: Any) -> None:
    compiled = _compiled(select(notes.c.id).where(notes.c.body.in_(["a", "b", "c"])), dialect)
    what = _changed("SQLCompiler._process_parameters_for_postcompile", "bot.db.driver")
    assert compiled.post_compile_params, what
    expanded = compiled._process_parameters_for_postcompile(dict(compiled.construct_params()))
    names = list(expanded.positiontup or ())
    assert [expanded.parameters[name] for name in names] == ["a", "b", "c"], what
    assert isinstance(expanded.processors, dict), what
    assert expanded.statement.count("?" if dialect.name == "sqlite" else "$") == 3, what


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda dialect: dialect.name)
def test_a_statements_cache_key_maps_its_values_onto_a_plan_of_its_shape(dialect: Any) -> None:
    first = select(notes.c.id).where(notes.c.body == "first")
    again = select(notes.c.id).where(notes.c.body == "again")
    what = _changed("ClauseElement._generate_cache_key and CacheKey", "bot.db.driver")
    first_key, again_key = first._generate_cache_key(), again._generate_cache_key()
    assert isinstance(first_key, CacheKey) and isinstance(again_key, CacheKey), what
    assert first_key.key == again_key.key, what
    plan = _compiled(first, dialect, first_key)
    values = plan.construct_params(extracted_parameters=again_key.bindparams)
    assert list(values.values()) == ["again"], what
    assert list(plan.positiontup or ()) == list(values) and set(values) <= set(plan.binds), what


def test_a_prepared_statements_values_are_read_without_checking_the_named_ones() -> None:
    what = _changed("SQLCompiler.construct_params(_check=...)", "bot.db.driver")
    assert "_check" in inspect.signature(SQLCompiler.construct_params).parameters, what
    statement = select(notes.c.id).where(notes.c.body == bindparam("body", required=True))
    compiled = _compiled(statement.where(notes.c.other == "fixed"), sqlite.dialect())
    assert list(compiled.construct_params(_check=False).values()) == [None, "fixed"], what


def test_an_entitys_write_says_it_is_the_orms_and_a_tables_does_not() -> None:
    what = _changed("Executable._propagate_attrs['compile_state_plugin']", "bot.db.uow")
    entity_write = update(Item).values(name="x")._propagate_attrs
    table_write = update(Item.__table__).values(name="x")._propagate_attrs
    assert entity_write.get("compile_state_plugin") == "orm", what
    assert table_write.get("compile_state_plugin") != "orm", what


# Our own column expressions, each built on two different columns (or keys): SQLAlchemy tells
# them apart by the members `_traverse_internals` names, and finds their FROM by `_from_objects`.
EXPRESSIONS: dict[str, Callable[[Any], Any]] = {
    "one_of": lambda table: one_of(table.c.body, ["a"]),
    "ordered_list": lambda table: OrderedList(
        other_notes.c.body, other_notes.c.position, other_notes.c.other, table.c.body
    ),
    "minutes_after": lambda table: minutes_after(table.c.body, table.c.id),
    "json_object": lambda table: json_object("key", table.c.body),
    "random_hex": lambda table: random_hex(table.c.body),
    "timestamp_text": lambda table: timestamp_text(table.c.body),
}


@pytest.mark.parametrize("build", EXPRESSIONS.values(), ids=EXPRESSIONS.keys())
def test_our_expressions_cache_by_their_members_and_find_their_from(
    build: Callable[[Any], Any],
) -> None:
    what = _changed(
        "ColumnElement._traverse_internals / InternalTraversal or _from_objects",
        "bot.db.expressions and bot.db.types",
    )
    assert {"dp_clauseelement", "dp_string"} <= set(InternalTraversal.__members__), what
    elsewhere = notes.alias("elsewhere")
    here, there = select(build(notes)), select(build(elsewhere))
    here_key, there_key = here._generate_cache_key(), there._generate_cache_key()
    assert here_key is not None and there_key is not None, what
    assert here_key.key != there_key.key, what  # else one's SQL would be reused for the other
    assert notes.c.body._from_objects == [notes], what
    assert str(here.compile(dialect=sqlite.dialect())).endswith("FROM notes"), what
    assert str(there.compile(dialect=sqlite.dialect())).endswith("FROM notes AS elsewhere"), what


def test_json_object_caches_by_its_key_too() -> None:
    what = _changed("InternalTraversal.dp_string", "bot.db.expressions.JsonObject")
    one = select(json_object("one", notes.c.body))._generate_cache_key()
    two = select(json_object("two", notes.c.body))._generate_cache_key()
    assert one is not None and two is not None and one.key != two.key, what


async def test_greenlet_spawn_runs_a_sync_function_from_async_code() -> None:
    what = _changed("sqlalchemy.util.greenlet_spawn", "bot.db.uow and bot.db.reads")
    assert inspect.iscoroutinefunction(greenlet_spawn), what
    assert await greenlet_spawn(lambda: 42) == 42, what


def test_the_aiosqlite_adapter_wraps_sqlite_inline_as_it_wraps_aiosqlite() -> None:
    what = _changed("AsyncAdapt_aiosqlite_dbapi(aiosqlite, sqlite)", "bot.db.engine")
    adapter = sqlalchemy_aiosqlite.AsyncAdapt_aiosqlite_dbapi
    assert list(inspect.signature(adapter).parameters) == ["aiosqlite", "sqlite"], what
    module = adapter(sqlite_inline, sqlite3)
    assert module.OperationalError is sqlite3.OperationalError, what
    assert module.has_stop, what  # the engine may terminate a connection: `Connection.stop`


# The members of an aiosqlite connection the adapter reads that aiosqlite does not document:
# `sqlite_inline.Connection` imitates each (aiosqlite itself is not installed).
AIOSQLITE_PRIVATE = {"_conn", "_connection", "_thread", "_tx"}


def test_the_adapter_reads_no_private_member_sqlite_inline_lacks() -> None:
    source = inspect.getsource(sqlalchemy_aiosqlite)
    read = set(re.findall(r"\bself\._connection\.(_\w+)", source))
    read |= set(re.findall(r"\bconnection\.(_thread)\b", source))
    assert read == AIOSQLITE_PRIVATE, _changed(
        f"the aiosqlite members its adapter reads (now {sorted(read)})", "bot.db.sqlite_inline"
    )
    connection = sqlite_inline.connect(":memory:")
    try:
        missing = {name for name in AIOSQLITE_PRIVATE if not hasattr(connection, name)}
        assert not missing, f"sqlite_inline.Connection lacks {missing}"
        assert hasattr(connection._tx, "put_nowait") and hasattr(connection._thread, "daemon")
    finally:
        connection.stop()


async def test_the_engine_sets_isolation_through_the_adapters_work_queue(tmp_path: Path) -> None:
    # AUTOCOMMIT sets the driver's isolation level: the adapter puts that on `_tx`, for `_conn`.
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'private.db'}")
    try:
        autocommit = engine.execution_options(isolation_level="AUTOCOMMIT")
        async with autocommit.connect() as connection:
            raw = await connection.get_raw_connection()
            assert raw.driver_connection._conn.isolation_level is None
            assert (await connection.execute(select(1))).scalar() == 1
    finally:
        await engine.dispose()

"""Hot reads on the driver's own connection (asyncpg, or sqlite3 through `sqlite_inline`).

SQLAlchemy stays the query language: a Core select is compiled once per shape, keyed by
SQLAlchemy's own cache key, and its SQL runs on the driver connection under the session, inside
whatever transaction the session holds. What this skips is the per-execution machinery
(execution context, result objects, the ORM's compile state): on a list request it cost more than
the database did.

Values go in and come out through the column types' own processors, so rows hold what
`session.execute` would give. A statement with an IN list that expands per request (its SQL
changes with the list's length) runs through the session instead: `bot.db.expressions.one_of`
keeps such lists on the fast path.
"""

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import Select
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.cache_key import CacheKey
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any]
AnySelect = Select[*tuple[Any, ...]]  # a select of any columns
# Plans kept per dialect: statement shapes are few, but a $filter's structure is the client's.
PLANS_KEPT = 512


@dataclass(frozen=True, slots=True)
class _Plan:
    compiled: SQLCompiler
    sql: str
    positions: tuple[tuple[str, Processor | None], ...]  # bind names in the driver's order
    names: tuple[str, ...]  # result columns
    results: tuple[tuple[int, Processor], ...]  # the columns whose type converts the value


class Row(dict[str, Any]):
    """A row by column name: `row["name"]`, or `row.name` as SQLAlchemy's rows allow."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class _Plans:
    """The compiled plans of one dialect, least recently used dropped first."""

    def __init__(self) -> None:
        self._plans: OrderedDict[Any, _Plan] = OrderedDict()

    def get(self, key: Any) -> _Plan | None:
        plan = self._plans.get(key)
        if plan is not None:
            self._plans.move_to_end(key)
        return plan

    def put(self, key: Any, plan: _Plan) -> None:
        self._plans[key] = plan
        if len(self._plans) > PLANS_KEPT:
            self._plans.popitem(last=False)


_plans: WeakKeyDictionary[Dialect, _Plans] = WeakKeyDictionary()


async def fetch_all(
    session: AsyncSession, statement: AnySelect, values: Mapping[str, Any] | None = None
) -> list[Row]:
    """The rows of `statement`, read with the raw driver; `values` for its named bindparams."""
    # Plain reads only: before the session's first statement of its own, PostgreSQL has not
    # begun the transaction yet (asyncpg's adapter begins lazily), so a row lock taken here
    # would not be held.
    if statement._for_update_arg is not None:
        raise ValueError("FOR UPDATE belongs to the session's transaction: use session.execute")
    dialect, driver = await _driver_connection(session)
    plan, parameters = _prepare(dialect, statement, values)
    if plan is None:
        result = await session.execute(statement, values)
        return [Row(row) for row in result.mappings()]
    arguments = [
        parameters[name] if process is None else process(parameters[name])
        for name, process in plan.positions
    ]
    records = await driver.fetch(plan.sql, *arguments)
    rows = [Row(zip(plan.names, record, strict=True)) for record in records]
    for index, process in plan.results:
        name = plan.names[index]
        for row in rows:
            row[name] = process(row[name])
    return rows


async def fetch_one(
    session: AsyncSession, statement: AnySelect, values: Mapping[str, Any] | None = None
) -> Row | None:
    """The first row of `statement`, or None."""
    rows = await fetch_all(session, statement, values)
    return rows[0] if rows else None


async def fetch_value(session: AsyncSession, statement: AnySelect) -> Any:
    """The first column of the first row of `statement`, or None."""
    row = await fetch_one(session, statement)
    return None if row is None else next(iter(row.values()))


async def _driver_connection(session: AsyncSession) -> tuple[Dialect, Any]:
    """The dialect and driver connection of the session's transaction, found once per
    transaction (asking the session each time costs more than a short query does)."""
    transaction = session.sync_session.get_transaction()
    kept = session.info.get(_KEPT)
    if kept is not None and transaction is not None and kept[0] is transaction:
        return kept[1], kept[2]
    connection = await session.connection()
    driver = (await connection.get_raw_connection()).driver_connection
    session.info[_KEPT] = (session.sync_session.get_transaction(), connection.dialect, driver)
    return connection.dialect, driver


_KEPT = "bot.db.driver"


def _prepare(
    dialect: Dialect, statement: AnySelect, values: Mapping[str, Any] | None
) -> tuple[_Plan | None, Mapping[str, Any]]:
    """The statement's plan, from the cache when its shape was seen, and its parameter values;
    no plan for a statement whose SQL depends on its values."""
    key = statement._generate_cache_key()  # what SQLAlchemy's own compiled cache is keyed by
    plans = _plans.setdefault(dialect, _Plans())
    plan = plans.get(key.key) if key is not None else None
    if plan is None:
        plan = _compile(dialect, statement, key)
        if plan is None:
            return None, {}
        if key is not None:
            plans.put(key.key, plan)
    extracted = key.bindparams if key is not None else None
    return plan, plan.compiled.construct_params(values, extracted_parameters=extracted)


def _compile(dialect: Dialect, statement: AnySelect, key: CacheKey | None) -> _Plan | None:
    # Compiled with its key, the plan can map a later statement's values onto its parameters.
    compiled = statement.compile(dialect=dialect, cache_key=key)
    assert isinstance(compiled, SQLCompiler)
    if compiled.post_compile_params:
        return None
    positions = tuple(
        (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
        for name in compiled.positiontup or ()
    )
    columns = list(statement.selected_columns)
    results = tuple(
        (index, process)
        for index, column in enumerate(columns)
        if (process := column.type.dialect_impl(dialect).result_processor(dialect, None))
    )
    return _Plan(
        compiled=compiled,
        sql=compiled.string,
        positions=positions,
        names=tuple(str(column.key) for column in columns),
        results=results,
    )

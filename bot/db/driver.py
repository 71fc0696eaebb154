"""How the unit of work runs a statement on the driver's own connection (asyncpg, or sqlite3
through `sqlite_inline`).

SQLAlchemy stays the query language: a Core statement is compiled once per shape and its SQL
runs on the driver connection. What this skips is the per-execution machinery (execution
context, result objects, the ORM's compile state): on a list request it cost more than the
database did. A statement built afresh is recognised by SQLAlchemy's own cache key; a `Prepared`
one skips even that.

Values go in and come out through the column types' own processors, so rows hold what
`session.execute` would give. An IN list (`column.in_(values)`) is expanded per call, as
SQLAlchemy does; its SQL changes with the list's length, so a hot statement binds a list as one
parameter with `bot.db.expressions.one_of` instead.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.sql.cache_key import CacheKey
from sqlalchemy.sql.compiler import SQLCompiler

from bot.db.statements import AnyStatement, Prepared, Row, Statement
from bot.lru import LeastRecentlyUsed

Processor = Callable[[Any], Any]
# Plans kept per dialect: statement shapes are few, but a $filter's structure is the client's.
PLANS_KEPT = 512


@dataclass(frozen=True, slots=True)
class _Plan:
    compiled: SQLCompiler
    sql: str
    positions: tuple[tuple[str, Processor | None], ...]  # bind names in the driver's order
    names: tuple[str, ...]  # result columns
    results: tuple[tuple[int, Processor], ...]  # the columns whose type converts the value

    def arguments(self, parameters: Mapping[str, Any]) -> list[Any]:
        """The driver's positional arguments for these parameter values."""
        return [
            parameters[name] if process is None else process(parameters[name])
            for name, process in self.positions
        ]

    def expanded(self, parameters: Mapping[str, Any]) -> tuple[str, list[Any]]:
        """The SQL and arguments of a statement with IN lists, each expanded to its values (by
        SQLAlchemy's own expansion, as its execution does)."""
        expanded = self.compiled._process_parameters_for_postcompile(dict(parameters))
        processors: dict[str, Any] = {**dict(self.positions), **expanded.processors}
        values = expanded.parameters
        arguments = []
        for name in expanded.positiontup or ():
            process = processors.get(name)
            arguments.append(values[name] if process is None else process(values[name]))
        return expanded.statement, arguments

    def rows(self, records: Sequence[Sequence[Any]]) -> list[Row]:
        """The driver's records as rows by column name, values converted by their types."""
        names = self.names
        # Not strict: a plan's names are its statement's columns, and the check costs every row.
        rows = [Row(zip(names, record, strict=False)) for record in records]
        for index, process in self.results:
            name = names[index]
            for row in rows:
                row[name] = process(row[name])
        return rows


# Plans by kind of dialect, not by dialect object: a plan holds its dialect, so plans kept by
# dialect object would keep every engine's dialect (and their plans) alive for good.
DialectKind = tuple[type[Dialect], Any]
_plans: dict[DialectKind, LeastRecentlyUsed[Any, _Plan]] = {}


def _kind(dialect: Dialect) -> DialectKind:
    """What a compiled plan depends on: the dialect's class and its server's version."""
    return type(dialect), dialect.server_version_info


async def run(
    dialect: Dialect, connection: Any, statement: Statement, values: Mapping[str, Any] | None
) -> list[Row]:
    """The rows `statement` gives (a write's RETURNING rows; none without)."""
    plan, parameters = _planned(dialect, statement, values)
    if plan.compiled.post_compile_params:
        sql, arguments = plan.expanded(parameters)
        return plan.rows(await connection.fetch(sql, *arguments))
    return plan.rows(await connection.fetch(plan.sql, *plan.arguments(parameters)))


async def run_many(
    dialect: Dialect,
    connection: Any,
    statement: Statement,
    rows: Sequence[Mapping[str, Any]],
    same: Mapping[str, Any] | None,
) -> None:
    """A write once per row of values, sent together (the driver's executemany); `same` holds
    the values every row shares, converted once."""
    if not rows:
        return
    plan, shared = _planned(dialect, statement, same)
    if plan.names or plan.compiled.post_compile_params:
        raise ValueError("a write run for many rows returns nothing and takes no IN list")
    template: list[Any] = []
    varying: list[tuple[int, str, Processor | None]] = []
    for index, (name, process) in enumerate(plan.positions):
        if name in rows[0]:
            template.append(None)
            varying.append((index, name, process))
        else:
            value = shared[name]
            template.append(value if process is None else process(value))
    arguments = []
    for row in rows:
        values = template.copy()
        for index, name, process in varying:
            value = row[name]
            values[index] = value if process is None else process(value)
        arguments.append(values)
    await connection.executemany(plan.sql, arguments)


def _planned(
    dialect: Dialect, statement: Statement, values: Mapping[str, Any] | None
) -> tuple[_Plan, Mapping[str, Any]]:
    """The statement's plan and its parameter values, the named `values` over its own."""
    if isinstance(statement, Prepared):
        plan, fixed = statement.plans.get(_kind(dialect)) or _prepare_once(dialect, statement)
        return plan, {**fixed, **values} if values else fixed
    key = statement._generate_cache_key()  # what SQLAlchemy's own compiled cache is keyed by
    plans = _plans.setdefault(_kind(dialect), LeastRecentlyUsed(PLANS_KEPT))
    plan = plans.get(key.key) if key is not None else None
    if plan is None:
        plan = _compile(dialect, statement, key)
        if key is not None:
            plans.put(key.key, plan)
    extracted = key.bindparams if key is not None else None
    return plan, plan.compiled.construct_params(params=values, extracted_parameters=extracted)


def _prepare_once(dialect: Dialect, prepared: Prepared) -> tuple[_Plan, dict[str, Any]]:
    plan = _compile(dialect, prepared.statement, None)
    # The values the statement carries (its literals); named ones come with each call.
    kept = plan, dict(plan.compiled.construct_params(_check=False))
    prepared.plans[_kind(dialect)] = kept
    return kept


def _compile(dialect: Dialect, statement: AnyStatement, key: CacheKey | None) -> _Plan:
    # Compiled with its key, the plan can map a later statement's values onto its parameters.
    compiled = statement.compile(dialect=dialect, cache_key=key)
    assert isinstance(compiled, SQLCompiler)
    positions = tuple(
        (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
        for name in compiled.positiontup or ()
    )
    columns = list(statement.exported_columns)  # a select's columns, or what a write returns
    names = tuple(str(column.key) for column in columns)
    if len(set(names)) < len(names):
        raise ValueError(f"rows are read by column name: label the repeated ones in {names}")
    results = tuple(
        (index, process)
        for index, column in enumerate(columns)
        if (process := column.type.dialect_impl(dialect).result_processor(dialect, None))
    )
    return _Plan(
        compiled=compiled, sql=compiled.string, positions=positions, names=names, results=results
    )

"""Hot reads on the driver's own connection (asyncpg, or sqlite3 through `sqlite_inline`).

SQLAlchemy stays the query language: a Core select is compiled once per shape and its SQL runs
on the driver connection a unit of work reads on (`bot.db.reads`). What this skips is the
per-execution machinery (execution context, result objects, the ORM's compile state): on a list
request it cost more than the database did. A statement built afresh is recognised by
SQLAlchemy's own cache key; one built once and run often (`Prepared`) skips even that.

Values go in and come out through the column types' own processors, so rows hold what
`session.execute` would give. An IN list that expands per request (its SQL changes with the
list's length) is refused: `bot.db.expressions.one_of` binds a list as one parameter.

Writes run there too (`PreparedWrite`, one row or many at once), and so do row locks
(`PreparedLock`), but only inside a writing unit's transaction: creating an item paid more for
the session's machinery than for its three writes, and a bulk edit of a thousand items paid for
it per row it read and wrote.
"""

from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Select, literal, select
from sqlalchemy.engine import Dialect
from sqlalchemy.sql.cache_key import CacheKey
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import UpdateBase

from bot.db.reads import Reads, TransactionReads

Processor = Callable[[Any], Any]
AnySelect = Select[*tuple[Any, ...]]  # a select of any columns
AnyStatement = AnySelect | UpdateBase  # a select, or an INSERT / UPDATE (maybe RETURNING)
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

    def rows(self, records: Sequence[Sequence[Any]]) -> list["Row"]:
        """The driver's records as rows by column name, values converted by their types."""
        names = self.names
        # Not strict: a plan's names are its statement's columns (strict cost a fifth of a row).
        rows = [Row(zip(names, record, strict=False)) for record in records]
        for index, process in self.results:
            name = names[index]
            for row in rows:
                row[name] = process(row[name])
        return rows


class Row(dict[str, Any]):
    """A row by column name: `row["name"]`, or `row.name` as SQLAlchemy's rows allow."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


K = TypeVar("K")
V = TypeVar("V")


class LeastRecentlyUsed(Generic[K, V]):
    """Values by key, at most `limit` of them: the least recently used is dropped first."""

    def __init__(self, limit: int) -> None:
        self._values: OrderedDict[K, V] = OrderedDict()
        self._limit = limit

    def get(self, key: K) -> V | None:
        value = self._values.get(key)
        if value is not None:
            self._values.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> V:
        self._values[key] = value
        self._values.move_to_end(key)
        if len(self._values) > self._limit:
            self._values.popitem(last=False)
        return value


# Plans by kind of dialect, not by dialect object: a plan holds its dialect, so plans kept by
# dialect object would keep every engine's dialect (and their plans) alive for good.
DialectKind = tuple[type[Dialect], Any]
_plans: dict[DialectKind, LeastRecentlyUsed[Any, _Plan]] = {}


def _kind(dialect: Dialect) -> DialectKind:
    """What a compiled plan depends on: the dialect's class and its server's version."""
    return type(dialect), dialect.server_version_info


async def fetch_all(reads: Reads, statement: AnySelect) -> list[Row]:
    """The rows of `statement` (a statement run often with named values: `Prepared`)."""
    _refuse_locks(statement)
    dialect, driver = await reads.connection()
    plan, parameters = _prepare(dialect, statement)
    return plan.rows(await driver.fetch(plan.sql, *plan.arguments(parameters)))


async def fetch_one(reads: Reads, statement: AnySelect) -> Row | None:
    """The first row of `statement`, or None."""
    rows = await fetch_all(reads, statement)
    return rows[0] if rows else None


class _Once:
    """A statement built once (at import) and run often, its per-call values given by name
    (`bindparam("name")`): compiled once per dialect, it skips even the cache key by which
    `fetch_all` recognises a statement built afresh."""

    def __init__(self, statement: AnyStatement) -> None:
        self.statement = statement
        self._plans: dict[DialectKind, tuple[_Plan, dict[str, Any]]] = {}

    async def _run(
        self, dialect: Dialect, driver: Any, values: Mapping[str, Any] | None
    ) -> list[Row]:
        plan, fixed = self._plan(dialect)
        parameters = {**fixed, **values} if values else fixed
        return plan.rows(await driver.fetch(plan.sql, *plan.arguments(parameters)))

    def _plan(self, dialect: Dialect) -> tuple[_Plan, dict[str, Any]]:
        kept = self._plans.get(_kind(dialect))
        if kept is None:
            kept = self._plans[_kind(dialect)] = self._compile(dialect)
        return kept

    def _compile(self, dialect: Dialect) -> tuple[_Plan, dict[str, Any]]:
        plan = _compile(dialect, self.statement, None)
        if plan.compiled.post_compile_params:
            raise ValueError("a prepared statement's SQL must not depend on its values")
        # The values the statement carries (its literals); named ones come with each call.
        return plan, dict(plan.compiled.construct_params(_check=False))


class Prepared(_Once):
    """A select run often: the hot paths' fixed statements (the caller, the people on a page,
    a channel's field values) and each cached list plan (`bot.items.plans`) are these."""

    def __init__(self, statement: AnySelect) -> None:
        _refuse_locks(statement)
        super().__init__(statement)

    async def all(self, reads: Reads, values: Mapping[str, Any] | None = None) -> list[Row]:
        """The rows."""
        dialect, driver = await reads.connection()
        return await self._run(dialect, driver, values)

    async def one(self, reads: Reads, values: Mapping[str, Any] | None = None) -> Row | None:
        """The first row, or None."""
        rows = await self.all(reads, values)
        return rows[0] if rows else None

    async def value(self, reads: Reads, values: Mapping[str, Any] | None = None) -> Any:
        """The first column of the first row, or None."""
        row = await self.one(reads, values)
        return None if row is None else next(iter(row.values()))


class PreparedWrite(_Once):
    """An INSERT or UPDATE run often (creating an item), on the driver connection inside the
    writing unit's transaction; its RETURNING columns come back as rows."""

    def __init__(self, statement: UpdateBase) -> None:
        super().__init__(statement)
        self._returns = bool(statement.exported_columns)

    async def run(self, reads: Reads, values: Mapping[str, Any]) -> list[Row]:
        """The returned rows (none without RETURNING)."""
        dialect, driver = await _begun(reads)
        return await self._run(dialect, driver, values)

    async def run_many(
        self,
        reads: Reads,
        rows: Sequence[Mapping[str, Any]],
        same: Mapping[str, Any] | None = None,
    ) -> None:
        """The statement once per row of values, sent together (the driver's executemany);
        `same` holds the values every row shares, converted once. Returns nothing."""
        if self._returns:
            raise ValueError("run_many returns no rows: RETURNING belongs to run")
        dialect, driver = await _begun(reads)
        plan, fixed = self._plan(dialect)
        shared = {**fixed, **same} if same else fixed
        template: list[Any] = []
        varying: list[tuple[int, str, Processor | None]] = []
        for index, (name, process) in enumerate(plan.positions):
            if rows and name in rows[0]:
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
        if arguments:
            await driver.executemany(plan.sql, arguments)


class PreparedLock(_Once):
    """A SELECT … FOR UPDATE run often (a bulk edit's rows), on the driver connection inside
    the writing unit's transaction: its rows stay locked until that transaction ends."""

    def __init__(self, statement: AnySelect) -> None:
        if statement._for_update_arg is None:
            raise ValueError("a PreparedLock locks its rows: give it a FOR UPDATE select")
        super().__init__(statement)

    async def all(self, reads: Reads, values: Mapping[str, Any] | None = None) -> list[Row]:
        """The rows, locked."""
        dialect, driver = await _begun(reads)
        return await self._run(dialect, driver, values)


async def _begun(reads: Reads) -> tuple[Dialect, Any]:
    """The driver connection of a writing unit, its transaction begun on the server."""
    assert isinstance(reads, TransactionReads), "writes and locks belong to a writing unit of work"
    dialect, driver = await reads.connection()
    if not driver.is_in_transaction():
        # PostgreSQL's adapter begins the unit's transaction at the first statement SQLAlchemy
        # runs: one trivial statement begins it, for the driver's statements to join (a lock or
        # a write outside it would end with its own statement).
        await reads.transaction_connection.execute(_BEGIN)
    return dialect, driver


_BEGIN = select(literal(1))


def _refuse_locks(statement: AnySelect) -> None:
    # Plain reads only: a unit of work that only reads has no transaction to hold a row lock,
    # and PostgreSQL's adapter begins a unit's transaction lazily, at SQLAlchemy's first statement.
    if statement._for_update_arg is not None:
        raise ValueError("FOR UPDATE belongs to the session's transaction: use session.execute")


def _prepare(dialect: Dialect, statement: AnySelect) -> tuple[_Plan, Mapping[str, Any]]:
    """The statement's plan, from the cache when its shape was seen, and its parameter values."""
    key = statement._generate_cache_key()  # what SQLAlchemy's own compiled cache is keyed by
    plans = _plans.setdefault(_kind(dialect), LeastRecentlyUsed(PLANS_KEPT))
    plan = plans.get(key.key) if key is not None else None
    if plan is None:
        plan = _compile(dialect, statement, key)
        if plan.compiled.post_compile_params:
            raise ValueError("an IN list's SQL changes with its length: use expressions.one_of")
        if key is not None:
            plans.put(key.key, plan)
    extracted = key.bindparams if key is not None else None
    return plan, plan.compiled.construct_params(extracted_parameters=extracted)


def _compile(dialect: Dialect, statement: AnyStatement, key: CacheKey | None) -> _Plan:
    # Compiled with its key, the plan can map a later statement's values onto its parameters.
    compiled = statement.compile(dialect=dialect, cache_key=key)
    assert isinstance(compiled, SQLCompiler)
    positions = tuple(
        (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
        for name in compiled.positiontup or ()
    )
    columns = list(statement.exported_columns)  # a select's columns, or what a write returns
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

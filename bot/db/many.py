"""Many rows inserted at once, the way each database takes them fastest.

PostgreSQL: one INSERT … SELECT over `unnest` of one array per varying column, sent as text and
cast to the column's type (a statement per row, even sent together, runs the executor per row).
SQLite runs in the process: a statement per row, sent together, costs it less than reading the
rows out of one value would.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

import orjson
from sqlalchemy import ColumnElement, Table, Text, bindparam, cast, func, insert, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect

from bot.db import driver
from bot.db.statements import Prepared


async def insert_rows(
    dialect: Dialect,
    connection: Any,
    table: Table,
    rows: Sequence[Mapping[str, Any]],
    same: Mapping[str, Any],
) -> None:
    """Insert `rows` (each with the same keys) into `table`, every one with the values `same`;
    the rows' values are text, JSON, aware datetimes, whole numbers or booleans."""
    if not rows:
        return
    varying = tuple(rows[0])
    if dialect.name != "postgresql":
        await driver.run_many(dialect, connection, _insert(table), rows, same)
        return
    arrays = {name: [_text(row[name]) for row in rows] for name in varying}
    statement = _insert_from_arrays(table, varying, tuple(same))
    await driver.run(dialect, connection, statement, {**same, **_array_names(arrays)})


@cache  # one per table
def _insert(table: Table) -> Prepared:
    return Prepared(insert(table))


@cache  # one per table and set of columns
def _insert_from_arrays(table: Table, varying: tuple[str, ...], same: tuple[str, ...]) -> Prepared:
    arrays = (
        func.unnest(*(bindparam(f"array_{name}", type_=ARRAY(Text())) for name in varying))
        .table_valued(*varying)
        .render_derived()
    )
    columns = [table.c[name] for name in varying + same]
    values: list[ColumnElement[Any]] = [
        cast(arrays.c[name], table.c[name].type) for name in varying
    ]
    values += [bindparam(name, type_=table.c[name].type) for name in same]
    return Prepared(insert(table).from_select(columns, select(*values)))


def _array_names(arrays: Mapping[str, list[str | None]]) -> dict[str, list[str | None]]:
    return {f"array_{name}": values for name, values in arrays.items()}


def _text(value: Any) -> str | None:
    """A varying value as the text PostgreSQL casts to its column's type."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return orjson.dumps(value).decode()
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("naive datetime given to insert_rows")
        return value.isoformat()
    if isinstance(value, int):  # booleans too: PostgreSQL reads `True` and `False`
        return str(value)
    kind = type(value).__name__
    raise TypeError(f"insert_rows sends text, JSON, datetimes and whole numbers, not {kind}")

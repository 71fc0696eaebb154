"""Inserts that meet a row a key already holds: the same SQL on SQLite and PostgreSQL
(`ON CONFLICT …`), built with PostgreSQL's construct, which SQLite's compiler renders too. The
only place outside `bot/db/` that would otherwise name a dialect: services build them here."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, Table
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.dialects.postgresql.dml import Insert
from sqlalchemy.sql.base import ReadOnlyColumnCollection

# The row an insert proposed, by column name (`ON CONFLICT`'s `excluded`).
Proposed = ReadOnlyColumnCollection[str, Any]


def upsert_from_select(
    table: Table, columns: Sequence[str], rows: Select[Any], *, key: Sequence[str]
) -> Insert:
    """Insert `rows` into `columns`; where `key` is taken, the other columns are replaced."""
    statement = insert(table).from_select(list(columns), rows)
    replaced = {name: statement.excluded[name] for name in columns if name not in key}
    return statement.on_conflict_do_update(index_elements=list(key), set_=replaced)


def insert_unless_present(table: Table, *, key: Sequence[str]) -> Insert:
    """Insert a row (values given at run time) unless one with the same `key` exists: a
    redelivered message is stored once."""
    return insert(table).on_conflict_do_nothing(index_elements=list(key))


def insert_or_update(
    table: Table,
    *,
    key: Sequence[str],
    update: Callable[[Proposed], Mapping[str, Any]],
    where: ColumnElement[bool] | None = None,
) -> Insert:
    """Insert a row (values given after); where `key` is taken (and `where` holds, if given),
    set the columns `update` computes from the proposed row instead."""
    statement = insert(table)
    return statement.on_conflict_do_update(
        index_elements=list(key), set_=dict(update(statement.excluded)), where=where
    )


def insert_or_replace(
    table: Table,
    *,
    key: Sequence[str],
    replaced: Sequence[str],
    where: ColumnElement[bool] | None = None,
) -> Insert:
    """Insert a row (values given after); where `key` is taken (and `where` holds, if given),
    its `replaced` columns take the proposed row's values and the others are kept."""
    return insert_or_update(
        table, key=key, update=lambda new: {name: new[name] for name in replaced}, where=where
    )

"""INSERT … SELECT that replaces the row a key already holds: the same SQL on SQLite and
PostgreSQL (`ON CONFLICT … DO UPDATE`), built with PostgreSQL's construct, which SQLite's
compiler renders too."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, Table
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.dialects.postgresql.dml import Insert


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

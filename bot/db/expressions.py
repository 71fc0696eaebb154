"""SQL expressions that read the same on SQLite and PostgreSQL but render per dialect."""

from collections.abc import Iterable
from typing import Any

import orjson
from sqlalchemy import String, bindparam
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter, ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import Boolean, TypeDecorator, TypeEngine


class _TextList(TypeDecorator[list[str]]):
    """A list of strings bound as one parameter: a PostgreSQL array, or JSON text for SQLite."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(ARRAY(String()))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: list[str] | None, dialect: Dialect) -> Any:
        if value is None or dialect.name == "postgresql":
            return value
        return orjson.dumps(value).decode()


_TEXT_LIST = _TextList()  # one instance: SQLAlchemy memoizes per type instance


class OneOf(ColumnElement[bool]):
    """`column IN (values)` with the values in one bound parameter, so the SQL is the same for
    any number of them: one cached plan, one prepared statement."""

    type = Boolean()
    inherit_cache = True
    _is_implicitly_boolean = True  # a comparison: SQLite must not add `= 1`
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("values", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, column: ColumnElement[Any], values: BindParameter[list[str]]) -> None:
        self.column = column
        self.values = values

    @property
    def _from_objects(self) -> list[Any]:  # the FROM the column needs
        return self.column._from_objects


def one_of(column: Any, values: Iterable[str]) -> OneOf:
    """Whether `column` (a string column) equals one of `values`."""
    return OneOf(_column(column), bindparam(None, list(values), type_=_TEXT_LIST))


def one_of_named(column: Any, name: str) -> OneOf:
    """`one_of` with the values given when it runs, as the parameter `name` (`driver.Prepared`)."""
    return OneOf(_column(column), bindparam(name, type_=_TEXT_LIST, required=True))


def _column(column: Any) -> ColumnElement[Any]:
    return column.expression if hasattr(column, "expression") else column


@compiles(OneOf, "postgresql")
def _one_of_postgresql(element: OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    return (
        f"{compiler.process(element.column, **kw)} = ANY ({compiler.process(element.values, **kw)})"
    )


@compiles(OneOf, "sqlite")
def _one_of_sqlite(element: OneOf, compiler: SQLCompiler, **kw: Any) -> str:
    column, values = compiler.process(element.column, **kw), compiler.process(element.values, **kw)
    return f"{column} IN (SELECT value FROM json_each({values}))"

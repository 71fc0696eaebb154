"""SQL expressions that read the same on SQLite and PostgreSQL but render per dialect."""

from collections.abc import Iterable
from typing import Any

import orjson
from sqlalchemy import Integer, String, bindparam, func, select
from sqlalchemy.dialects.postgresql import ARRAY, aggregate_order_by
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
    """`one_of` with the values given when it runs, as the parameter `name`."""
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


class _ValuesInOrder(TypeDecorator[list[str]]):
    """PostgreSQL's array as it is; SQLite's JSON `[[position, value], …]` put in order."""

    impl = String
    cache_ok = True

    def process_result_value(self, value: Any, dialect: Dialect) -> list[str]:
        if value is None or value == "[]":  # most lists are empty
            return []
        if isinstance(value, str):
            return [item for _position, item in sorted(orjson.loads(value))]
        return list(value)


class OrderedList(ColumnElement[list[str]]):
    """The values of the rows whose `key_column` equals `outer` (a column of the outer row), in
    `position` order, as one column of the outer row."""

    type = _ValuesInOrder()
    inherit_cache = True
    _traverse_internals = [
        ("value", InternalTraversal.dp_clauseelement),
        ("position", InternalTraversal.dp_clauseelement),
        ("key_column", InternalTraversal.dp_clauseelement),
        ("outer", InternalTraversal.dp_clauseelement),
    ]

    def __init__(
        self,
        value: ColumnElement[str],
        position: ColumnElement[int],
        key_column: ColumnElement[str],
        outer: ColumnElement[str],
    ) -> None:
        self.value, self.position, self.key_column, self.outer = value, position, key_column, outer

    @property
    def _from_objects(self) -> list[Any]:  # the FROM the outer column needs
        return self.outer._from_objects


@compiles(OrderedList, "postgresql")
def _ordered_list_postgresql(element: OrderedList, compiler: SQLCompiler, **kw: Any) -> str:
    ordered = aggregate_order_by(element.value, element.position)
    values = select(func.array_agg(ordered)).where(element.key_column == element.outer)
    return str(compiler.process(values.scalar_subquery(), **kw))


@compiles(OrderedList, "sqlite")
def _ordered_list_sqlite(element: OrderedList, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite 3.40 has no ORDER BY inside an aggregate: positions travel along, Python sorts.
    pairs = func.json_group_array(func.json_array(element.position, element.value))
    values = select(pairs).where(element.key_column == element.outer)
    return str(compiler.process(values.scalar_subquery(), **kw))


class MinutesAfter(ColumnElement[Any]):
    """`instant` plus `minutes` (an integer expression, e.g. a column), as a timestamp that
    compares with UTCDateTime columns on either database."""

    inherit_cache = True
    _traverse_internals = [
        ("instant", InternalTraversal.dp_clauseelement),
        ("minutes", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, instant: ColumnElement[Any], minutes: ColumnElement[int]) -> None:
        self.instant, self.minutes = instant, minutes
        self.type = instant.type

    @property
    def _from_objects(self) -> list[Any]:
        return [*self.instant._from_objects, *self.minutes._from_objects]


def minutes_after(instant: ColumnElement[Any], minutes: ColumnElement[int]) -> MinutesAfter:
    return MinutesAfter(instant, minutes)


@compiles(MinutesAfter, "postgresql")
def _minutes_after_postgresql(element: MinutesAfter, compiler: SQLCompiler, **kw: Any) -> str:
    instant, minutes = (
        compiler.process(element.instant, **kw),
        compiler.process(element.minutes, **kw),
    )
    return f"({instant} + make_interval(mins => {minutes}))"


@compiles(MinutesAfter, "sqlite")
def _minutes_after_sqlite(element: MinutesAfter, compiler: SQLCompiler, **kw: Any) -> str:
    # UTCDateTime stores `2026-11-22 09:30:00.123456`; strftime writes milliseconds, which
    # compare with the stored text character by character.
    instant, minutes = (
        compiler.process(element.instant, **kw),
        compiler.process(element.minutes, **kw),
    )
    return f"strftime('%Y-%m-%d %H:%M:%f', {instant}, ({minutes}) || ' minutes')"


class JsonObject(ColumnElement[Any]):
    """A JSON object built in the database from one key and a text value."""

    inherit_cache = True
    _traverse_internals = [
        ("key", InternalTraversal.dp_string),
        ("value", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, key: str, value: ColumnElement[str]) -> None:
        self.key, self.value = key, value
        self.type = String()

    @property
    def _from_objects(self) -> list[Any]:
        return self.value._from_objects


def json_object(key: str, value: ColumnElement[str]) -> JsonObject:
    """`{key: value}` as JSON, for INSERT … SELECT into a JSON column."""
    return JsonObject(key, value)


@compiles(JsonObject, "postgresql")
def _json_object_postgresql(element: JsonObject, compiler: SQLCompiler, **kw: Any) -> str:
    key = compiler.render_literal_value(element.key, String())
    return f"json_build_object({key}, {compiler.process(element.value, **kw)})"


@compiles(JsonObject, "sqlite")
def _json_object_sqlite(element: JsonObject, compiler: SQLCompiler, **kw: Any) -> str:
    key = compiler.render_literal_value(element.key, String())
    return f"json_object({key}, {compiler.process(element.value, **kw)})"


class RandomHex(ColumnElement[str]):
    """16 random lowercase hex characters per row (the random part of an id made in SQL);
    `salt` (a column) keeps rows of one statement apart on PostgreSQL."""

    type = String()
    inherit_cache = True
    _traverse_internals = [("salt", InternalTraversal.dp_clauseelement)]

    def __init__(self, salt: ColumnElement[str]) -> None:
        self.salt = salt

    @property
    def _from_objects(self) -> list[Any]:
        return self.salt._from_objects


def random_hex(salt: ColumnElement[str]) -> RandomHex:
    return RandomHex(salt)


@compiles(RandomHex, "postgresql")
def _random_hex_postgresql(element: RandomHex, compiler: SQLCompiler, **kw: Any) -> str:
    return f"substr(md5(random()::text || {compiler.process(element.salt, **kw)}), 1, 16)"


@compiles(RandomHex, "sqlite")
def _random_hex_sqlite(element: RandomHex, compiler: SQLCompiler, **kw: Any) -> str:
    return "lower(hex(randomblob(8)))"


class CountAdded(ColumnElement[Any]):
    """A JSON object column with its whole-number member `name` increased by `by` (an absent one
    counted from 0), computed by the database from the row as it stands: an `UPDATE … SET` of
    it adds without reading the row first."""

    inherit_cache = True
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("name", InternalTraversal.dp_string),
        ("by", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, column: Any, name: str, by: int) -> None:
        assert name.isidentifier(), "a member's name is written into the SQL"
        self.column, self.name = _column(column), name
        self.by = bindparam(f"count_{name}", by, type_=Integer())
        self.type = self.column.type


@compiles(CountAdded, "postgresql")
def _count_added_postgresql(element: CountAdded, compiler: SQLCompiler, **kw: Any) -> str:
    column, by = compiler.process(element.column, **kw), compiler.process(element.by, **kw)
    name = element.name
    return (
        f"CAST(jsonb_set(CAST({column} AS jsonb), '{{{name}}}', "
        f"to_jsonb(COALESCE(CAST({column} ->> '{name}' AS integer), 0) + {by})) AS json)"
    )


@compiles(CountAdded, "sqlite")
def _count_added_sqlite(element: CountAdded, compiler: SQLCompiler, **kw: Any) -> str:
    column, by = compiler.process(element.column, **kw), compiler.process(element.by, **kw)
    name = element.name
    return f"json_set({column}, '$.{name}', COALESCE(json_extract({column}, '$.{name}'), 0) + {by})"

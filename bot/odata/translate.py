"""A `$filter` syntax tree → a SQLAlchemy condition, typed by the entity set's properties.

Every condition built here is two-valued: a comparison on a NULL column is false, not SQL's
unknown, so `not` and all() keep their OData meaning. Values reach SQL only as bound parameters.
"""

import operator
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from odata_query import ast
from sqlalchemy import BigInteger, ColumnElement, String, and_, false, literal, or_, true

from bot.db.text import escape_like, fold_case, fold_text, folded_like
from bot.errors import BadRequest
from bot.odata.errors import invalid
from bot.odata.model import Collection, EntitySet, PropertyKind
from bot.timestamps import parse_timestamp

DATE_PREFIX = "$date:"

_TEXT = frozenset({PropertyKind.TEXT, PropertyKind.NAME, PropertyKind.ID})
_OPERATORS: dict[type[ast._Comparator], Callable[[Any, Any], ColumnElement[bool]]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
# `5 lt internalId` reads as `internalId gt 5`.
_MIRRORED: dict[type[ast._Comparator], type[ast._Comparator]] = {
    ast.Lt: ast.Gt,
    ast.Gt: ast.Lt,
    ast.LtE: ast.GtE,
    ast.GtE: ast.LtE,
}
_LIKE_PATTERNS = {"contains": "%{}%", "startswith": "{}%", "endswith": "%{}"}
_EXPECTED = {
    PropertyKind.TEXT: "text (a quoted string)",
    PropertyKind.NAME: "a name (a quoted string)",
    PropertyKind.ID: "an id (a quoted string)",
    PropertyKind.INTEGER: "a whole number",
    PropertyKind.BOOLEAN: "true or false",
    PropertyKind.DATETIME: "a date and time (2026-01-01T00:00:00Z)",
}
_DESCRIPTIONS: dict[type[Any], str] = {
    ast.String: "a string",
    ast.Integer: "a whole number",
    ast.Float: "a decimal number",
    ast.Boolean: "true or false",
    ast.Null: "null",
    ast.Date: "a date",
    ast.DateTime: "a date and time",
    ast.List: "a list",
}


def translate(tree: ast._Node, entity: EntitySet) -> ColumnElement[bool]:
    """The WHERE condition a parsed `$filter` means for `entity`."""
    return _Translator(entity).condition(tree)


@dataclass(frozen=True, eq=False)
class _Field:
    """A property as the filter uses it (its SQL expression compares by identity: eq=False)."""

    label: str  # as written, for messages
    column: ColumnElement[Any]
    kind: PropertyKind
    nullable: bool


@dataclass(frozen=True)
class _Lambda:
    """Inside `assignedTo/any(u: …)`: `u/<property>` names a property of one assignee."""

    variable: str
    collection: Collection


_Operand = _Field | ast._Literal | ColumnElement[bool]


class _Translator:
    """Walks one filter (or one lambda's body, with `scope` set) into SQL."""

    def __init__(self, entity: EntitySet, scope: _Lambda | None = None) -> None:
        self.entity = entity
        self.scope = scope

    def condition(self, node: ast._Node) -> ColumnElement[bool]:
        """`node` as a condition; anything that is not one is the caller's error."""
        match node:
            case ast.BoolOp(op=ast.And()):
                return and_(*map(self.condition, _chain(node)))
            case ast.BoolOp(op=ast.Or()):
                return or_(*map(self.condition, _chain(node)))
            case ast.UnaryOp(op=ast.Not()):
                return ~self.condition(node.operand)  # exact: the operand is two-valued
            case ast.Compare(comparator=ast.In()):
                return self._in(node)
            case ast.Compare():
                return self._compare(node)
            case ast.Call():
                return self._call(node)
            case ast.CollectionLambda():
                return self._lambda(node)
            case ast.Boolean():
                return true() if node.py_val else false()
            case ast.Identifier() | ast.Attribute():
                field = self._field(node)
                if field.kind is not PropertyKind.BOOLEAN:
                    raise _invalid(f"'{field.label}' is not true or false: compare it with a value")
                return field.column.is_(true())
            case ast.BinOp() | ast.UnaryOp():
                raise _invalid("arithmetic is not supported")
        raise _invalid(f"{_describe(node)} is not a condition")

    def _operand(self, node: ast._Node) -> _Operand:
        match node:
            case ast._Literal():
                return node
            case ast.Identifier() | ast.Attribute():
                return self._field(node)
            case ast.Call(func=ast.Identifier(name="tolower" | "toupper", namespace=())):
                return self._case_mapped(node)
        return self.condition(node)  # compared with true or false, OData v2 style

    def _field(self, node: ast.Identifier | ast.Attribute) -> _Field:
        path = _path(node)
        scope = self.scope
        if scope and node == ast.Identifier(scope.variable):
            names = ", ".join(f"{path}/{name}" for name in scope.collection.properties)
            raise _invalid(f"'{path}' is a whole element of {scope.collection.name}; use {names}")
        if (
            scope
            and isinstance(node, ast.Attribute)
            and node.owner == ast.Identifier(scope.variable)
        ):
            prop = scope.collection.properties.get(node.attr)
        else:
            prop = self.entity.properties.get(path)
        if prop is None:
            root = path.split("/")[0]
            if root in self.entity.collections:
                raise _invalid(f"'{root}' is a collection: use {root}/any(…) or {root}/all(…)")
            raise _invalid(f"unknown property '{path}'")
        return _Field(path, prop.expression, prop.kind, prop.nullable)

    def _case_mapped(self, node: ast.Call) -> _Field | ast.String:
        name = node.func.name
        (argument,) = node.args
        mapped = self._operand(argument)
        if isinstance(mapped, ast.String):
            return ast.String(mapped.val.lower() if name == "tolower" else mapped.val.upper())
        if isinstance(mapped, _Field) and mapped.kind in _TEXT:
            # Free text ignores case already; a mapped name or id compares like free text.
            return replace(mapped, label=f"{name}({mapped.label})", kind=PropertyKind.TEXT)
        raise _invalid(f"{name}() takes text, not {_describe(mapped)}")

    def _compare(self, node: ast.Compare) -> ColumnElement[bool]:
        left, right = self._operand(node.left), self._operand(node.right)
        comparator = type(node.comparator)
        if isinstance(left, ast._Literal) and not isinstance(right, ast._Literal):
            left, right, comparator = right, left, _MIRRORED.get(comparator, comparator)
        match left, right:
            case _Field(), ast.Null():
                return _compare_null(left, comparator)
            case _Field(), ast._Literal():
                return _compare_value(left, comparator, _value(left, right))
            case _Field(), _Field():
                return _compare_fields(left, comparator, right)
            case ColumnElement(), ast.Boolean() if comparator in (ast.Eq, ast.NotEq):
                return left if right.py_val == (comparator is ast.Eq) else ~left
        raise _invalid(f"cannot compare {_describe(left)} with {_describe(right)}")

    def _in(self, node: ast.Compare) -> ColumnElement[bool]:
        field = self._operand(node.left)
        if not isinstance(field, _Field) or not isinstance(node.right, ast.List):
            raise _invalid("'in' takes a property on its left and a list of values on its right")
        items = node.right.val
        values = [_value(field, item) for item in items if not isinstance(item, ast.Null)]
        if _exact(field.kind, ast.Eq):  # `in` is a run of `eq`s
            listed = _one_of(field.column, values)
        else:
            listed = _one_of(fold_case(field.column), [_folded(value) for value in values])
        matched = _two_valued(field, listed)
        if len(values) < len(items):  # null is one of the values
            return or_(field.column.is_(None), matched)
        return matched

    def _call(self, node: ast.Call) -> ColumnElement[bool]:
        name = node.func.full_name()
        if name in _LIKE_PATTERNS:
            subject, text = node.args
            return self._like(name, subject, text, _LIKE_PATTERNS[name])
        if name == "substringof":  # OData v2: the text to find comes first
            text, subject = node.args
            return self._like(name, subject, text, _LIKE_PATTERNS["contains"])
        if name in ("tolower", "toupper"):
            raise _invalid(f"{name}() gives text, not a condition: compare it with a value")
        raise _invalid(f"unsupported function '{name}'")

    def _like(
        self, name: str, subject: ast._Node, text: ast._Node, pattern: str
    ) -> ColumnElement[bool]:
        field = self._operand(subject)
        if not isinstance(field, _Field) or field.kind not in _TEXT:
            raise _invalid(f"{name}() looks in a text property, not {_describe(field)}")
        if not isinstance(text, ast.String):
            raise _invalid(f"{name}() looks for a quoted string, not {_describe(text)}")
        wanted = fold_text(pattern.format(escape_like(text.val)))
        return _two_valued(field, folded_like(field.column, wanted))

    def _lambda(self, node: ast.CollectionLambda) -> ColumnElement[bool]:
        collection = self._collection(node.owner)
        if node.lambda_ is None:
            return collection.exists(None)
        variable = node.lambda_.identifier
        if variable.namespace:
            raise _invalid(f"'{variable.full_name()}' cannot name a lambda variable")
        inner = _Translator(self.entity, _Lambda(variable.name, collection))
        condition = inner.condition(node.lambda_.expression)
        if isinstance(node.operator, ast.All):
            return ~collection.exists(~condition)  # no element fails the condition
        return collection.exists(condition)

    def _collection(self, owner: ast._Node) -> Collection:
        if self.scope is not None:
            raise _invalid("any() and all() cannot be nested")
        name = _path(owner)
        if name in self.entity.collections:
            return self.entity.collections[name]
        known = ", ".join(self.entity.collections) or "nothing in this list"
        raise _invalid(f"'{name}' is not a collection; any() and all() apply to {known}")


def _compare_null(field: _Field, comparator: type[ast._Comparator]) -> ColumnElement[bool]:
    if comparator is ast.Eq:
        return field.column.is_(None)
    if comparator is ast.NotEq:
        return field.column.is_not(None)
    raise _invalid(f"only eq and ne compare '{field.label}' with null")


def _compare_value(
    field: _Field, comparator: type[ast._Comparator], value: Any
) -> ColumnElement[bool]:
    compare = _OPERATORS[comparator]
    if _exact(field.kind, comparator):
        condition = compare(field.column, literal(value, field.column.type))
    else:
        condition = compare(fold_case(field.column), _folded(value))
    return _two_valued(field, condition, null_is_true=comparator is ast.NotEq)


def _compare_fields(
    left: _Field, comparator: type[ast._Comparator], right: _Field
) -> ColumnElement[bool]:
    if left.kind is not right.kind and not {left.kind, right.kind} <= _TEXT:
        raise _invalid(f"cannot compare '{left.label}' with '{right.label}': their types differ")
    a, b = left.column, right.column
    if not (_exact(left.kind, comparator) and _exact(right.kind, comparator)):
        a, b = fold_case(a), fold_case(b)
    # OData's null equals null, unlike SQL's: IS [NOT] DISTINCT FROM says so.
    if comparator is ast.Eq:
        return a.is_not_distinct_from(b)
    if comparator is ast.NotEq:
        return a.is_distinct_from(b)
    return _two_valued(left, _two_valued(right, _OPERATORS[comparator](a, b)))


def _exact(kind: PropertyKind, comparator: type[ast._Comparator]) -> bool:
    """Whether the comparison keeps case: everything but text, except names compared by eq/ne/in."""
    if kind is PropertyKind.NAME:
        return comparator in (ast.Eq, ast.NotEq)
    return kind is not PropertyKind.TEXT


def _two_valued(
    field: _Field, condition: ColumnElement[bool], *, null_is_true: bool = False
) -> ColumnElement[bool]:
    """`condition`, false (or true) where the column is NULL instead of SQL's unknown."""
    if not field.nullable:
        return condition
    if null_is_true:
        return or_(field.column.is_(None), condition)
    return and_(field.column.is_not(None), condition)


def _folded(text: str) -> ColumnElement[str]:
    return fold_case(literal(text, String()))


def _value(field: _Field, node: ast._Node) -> Any:
    """The Python value of literal `node` as `field`'s kind takes it."""
    match field.kind, node:
        case ((PropertyKind.TEXT | PropertyKind.NAME | PropertyKind.ID), ast.String()):
            return node.val
        case PropertyKind.INTEGER, ast.Integer():
            return _integer(field, node.py_val)
        case PropertyKind.BOOLEAN, ast.Boolean():
            return node.py_val
        case PropertyKind.DATETIME, ast.DateTime() | ast.Date():
            return _instant(node.val)
        case PropertyKind.DATETIME, ast.String() if node.val.startswith(DATE_PREFIX):
            return _instant(node.val.removeprefix(DATE_PREFIX))
    raise _invalid(f"'{field.label}' takes {_EXPECTED[field.kind]}, not {_describe(node)}")


def _integer(field: _Field, value: int) -> int:
    # Out of the column's range the driver would fail; say so instead.
    bits = 63 if isinstance(field.column.type, BigInteger) else 31
    if not -(2**bits) <= value < 2**bits:
        raise _invalid(f"{value} is out of range for '{field.label}'")
    return value


def _instant(text: str) -> datetime:
    """An ISO 8601 instant in UTC, read as body fields are (docs/api.md, Conventions)."""
    try:
        return parse_timestamp(text)
    except ValueError:
        raise _invalid(f"'{text}' is not a valid date and time") from None


def _one_of(expression: ColumnElement[Any], values: list[Any]) -> ColumnElement[bool]:
    """`expression IN (…)` with one parameter per value: the SQL is fixed by the filter's text
    (SQLAlchemy's own lists expand per run, which prepared list statements cannot)."""
    if not values:
        return false()
    return expression.in_(
        [
            value if isinstance(value, ColumnElement) else literal(value, expression.type)
            for value in values
        ]
    )


def _chain(node: ast.BoolOp) -> list[ast._Node]:
    """The operands of `a and b and c` (or `or`) in order, without recursing down long chains."""
    operands: list[ast._Node] = []
    pending: list[ast._Node] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.BoolOp) and type(current.op) is type(node.op):
            pending += (current.right, current.left)
        else:
            operands.append(current)
    return operands


def _path(node: ast._Node) -> str:
    match node:
        case ast.Identifier():
            return node.full_name()
        case ast.Attribute():
            return f"{_path(node.owner)}/{node.attr}"
    return _describe(node)


def _describe(operand: object) -> str:
    if isinstance(operand, _Field):
        return f"'{operand.label}'"
    if isinstance(operand, ColumnElement):
        return "a condition"
    if isinstance(operand, ast.Identifier | ast.Attribute):
        return f"'{_path(operand)}'"
    return _DESCRIPTIONS.get(type(operand), "an unsupported expression")


def _invalid(detail: str) -> BadRequest:
    return invalid("$filter", detail)

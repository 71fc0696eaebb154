"""Case-insensitive text that behaves the same on SQLite and PostgreSQL."""

from typing import Any

from sqlalchemy import Boolean, ColumnElement, String, and_, collate, func, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

# ICU's root locale lower-cases all of Unicode exactly as Python's str.lower does (final sigma and
# dotted İ included), whatever locale the database was created with: C folds ASCII only.
POSTGRES_CASE_RULES = "und-x-icu"
# The folded text then compares and sorts by code point, as SQLite's BINARY does, so ranges and
# orders agree across the two databases.
POSTGRES_ORDER = "C"
# SQLite's own lower() folds ASCII only, so its connections get this function (see below).
SQLITE_FUNCTION = "odata_lower"
LIKE_ESCAPE = "\\"


class _FoldCase(FunctionElement[str]):
    type = String()
    inherit_cache = True
    name = "fold_case"


def fold_case(expression: ColumnElement[Any]) -> ColumnElement[str]:
    """`expression` lower-cased by Unicode's rules, the same on both databases."""
    return _FoldCase(expression)


@compiles(_FoldCase)
def _fold_with_registered_function(element: _FoldCase, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(getattr(func, SQLITE_FUNCTION)(*element.clauses), **kw)


@compiles(_FoldCase, "postgresql")
def _fold_with_icu(element: _FoldCase, compiler: SQLCompiler, **kw: Any) -> str:
    (argument,) = element.clauses
    lowered = func.lower(collate(argument, POSTGRES_CASE_RULES), type_=String())
    return compiler.process(collate(lowered, POSTGRES_ORDER), **kw)


# The ASCII letters a character outside ASCII lowers into: İ (U+0130) into "i" and a dot above,
# the Kelvin sign (U+212A) into "k" (`tests/db/test_text.py` checks every character).
LOWERED_INTO_ASCII = frozenset("ik")


class _NarrowedFoldedLike(FunctionElement[bool]):
    type = Boolean()
    inherit_cache = True
    name = "narrowed_folded_like"


def folded_like(expression: ColumnElement[Any], pattern: str) -> ColumnElement[bool]:
    """`expression` folded LIKE `pattern` (folded already, its wildcards escaped with
    `LIKE_ESCAPE`). On SQLite the fold is a call into Python for every row; SQLite's own LIKE,
    which matches ASCII letters in either case, is asked first where it cannot miss a row the
    fold would match: a pattern of ASCII alone, none of it a letter something else lowers into.
    A row whose folded text holds such a pattern holds it, letter for letter, in either case."""
    narrowing = pattern.isascii() and not LOWERED_INTO_ASCII.intersection(pattern)
    if narrowing:
        return _NarrowedFoldedLike(expression, literal(pattern, String()))
    return fold_case(expression).like(literal(pattern, String()), escape=LIKE_ESCAPE)


@compiles(_NarrowedFoldedLike)
def _like_then_fold(element: _NarrowedFoldedLike, compiler: SQLCompiler, **kw: Any) -> str:
    expression, pattern = element.clauses
    narrowed = and_(
        expression.like(pattern, escape=LIKE_ESCAPE),
        fold_case(expression).like(pattern, escape=LIKE_ESCAPE),
    )
    return f"({compiler.process(narrowed, **kw)})"  # one term, wherever it stands


@compiles(_NarrowedFoldedLike, "postgresql")
def _fold_alone(element: _NarrowedFoldedLike, compiler: SQLCompiler, **kw: Any) -> str:
    # PostgreSQL's LIKE is case-sensitive, and its fold runs in the server: the fold alone.
    expression, pattern = element.clauses
    return f"({compiler.process(fold_case(expression).like(pattern, escape=LIKE_ESCAPE), **kw)})"


def register_sqlite_functions(dbapi_connection: Any) -> None:
    """Give a new SQLite connection the functions this package's SQL calls (a connect hook)."""
    dbapi_connection.create_function(SQLITE_FUNCTION, 1, _lower, deterministic=True)


def _lower(value: object) -> object:
    return fold_text(value) if isinstance(value, str) else value


def fold_text(text: str) -> str:
    """`text` as `fold_case` folds it in SQL (a sort key kept on a row holds this)."""
    return text.lower()


def escape_like(text: str) -> str:
    """`text` with LIKE's wildcards and the escape character escaped, to match it literally."""
    for special in (LIKE_ESCAPE, "%", "_"):
        text = text.replace(special, LIKE_ESCAPE + special)
    return text

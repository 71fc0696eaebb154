"""OData `$filter`s fuzzed without a database, which is not needed to check how they parse.

Literal values reach PostgreSQL's SQL only as bound parameters, parsing stays fast on inputs up to
the 2 KB limit, and longer or deeper filters are refused.
"""

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect

from bot.db.text import escape_like
from bot.errors import BadRequest
from bot.odata.model import EntitySet, PropertyKind
from bot.odata.parse import MAX_DEPTH, MAX_LENGTH
from bot.odata.query import parse_query
from tests.generated.odata_strategies import (
    BOUNDED,
    BUGS,
    COMPARATORS,
    LIKE_FUNCTIONS,
    LISTS,
    SPECIAL_TEXT,
    TOKENS,
    any_filter,
    instants,
    quoted,
    text_characters,
)

ENTITIES = {entity.name: entity for entity in LISTS.values()}

# Marks every generated text value, so the check below cannot match SQL's own words by chance.
MARK = "§"
# Texts short enough that a few of them stay within the 2 KB limit of a filter.
marked_texts = st.one_of(
    st.text(text_characters, max_size=24),
    st.sampled_from(SPECIAL_TEXT),
    st.tuples(st.text(text_characters, min_size=1, max_size=3), st.integers(20, 100)).map(
        lambda t: t[0] * t[1]
    ),
).map(lambda text: MARK + text + MARK)


@dataclass(frozen=True)
class Marked:
    """A filter whose literal values are known: where they may appear, and where never."""

    text: str
    values: tuple[Any, ...]


@st.composite
def marked_leaves(draw: st.DrawFn, entity: EntitySet) -> Marked:
    """A type-correct condition carrying one distinctive literal value."""
    comparable = [
        name
        for name, prop in sorted(entity.properties.items())
        if prop.kind is not PropertyKind.BOOLEAN
    ]
    name = draw(st.sampled_from(comparable))
    kind = entity.properties[name].kind
    op = draw(st.sampled_from(COMPARATORS))
    if kind in (PropertyKind.TEXT, PropertyKind.NAME, PropertyKind.ID):
        value = draw(marked_texts)
        shape = draw(st.integers(0, 5))
        if shape == 0:
            return Marked(
                f"{draw(st.sampled_from(LIKE_FUNCTIONS))}({name}, {quoted(value)})", (value,)
            )
        if shape == 1:
            return Marked(f"substringof({quoted(value)}, {name})", (value,))
        if shape == 2:
            other = draw(marked_texts)
            return Marked(f"{name} in ({quoted(value)}, {quoted(other)})", (value, other))
        if shape == 3:
            return Marked(f"tolower({name}) {op} {quoted(value)}", (value,))
        if shape == 4 and entity.collections:
            member = draw(st.sampled_from(sorted(entity.collections["assignedTo"].properties)))
            return Marked(f"assignedTo/any(u: u/{member} {op} {quoted(value)})", (value,))
        return Marked(f"{name} {op} {quoted(value)}", (value,))
    if kind is PropertyKind.INTEGER:
        number = draw(st.integers(100_000, 2**31 - 1) | st.integers(-(2**31), -100_000))
        return Marked(f"{name} {op} {number}", (number,))
    assert kind is PropertyKind.DATETIME
    moment = draw(instants).replace(microsecond=0)
    form = draw(st.integers(0, 1))
    written = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if len(written) != 20:  # years before 1000: strftime does not pad
        moment = moment.replace(year=moment.year + 1000)
        written = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    literal = written if form == 0 else quoted(f"$date:{written}")
    return Marked(f"{name} {op} {literal}", (moment,))


def marked_filters(entity: EntitySet) -> st.SearchStrategy[Marked]:
    def combine(left: Marked, joiner: str, right: Marked) -> Marked:
        return Marked(f"{left.text} {joiner} {right.text}", left.values + right.values)

    return st.recursive(
        marked_leaves(entity),
        lambda inner: st.one_of(
            st.builds(combine, inner, st.sampled_from(["and", "or"]), inner),
            inner.map(lambda m: Marked(f"not ({m.text})", m.values)),
        ),
        max_leaves=4,
    ).filter(lambda marked: len(marked.text) <= MAX_LENGTH)


def _forms(value: Any) -> set[str]:
    """How a value would read in SQL if it were written into it instead of bound: as given,
    case-mapped, quotes doubled, LIKE-escaped."""
    if isinstance(value, str):
        forms = {value, value.lower(), value.upper()}
        forms |= {escape_like(form) for form in forms}
        return forms | {form.replace("'", "''") for form in forms}
    if isinstance(value, datetime):
        return {value.strftime("%Y-%m-%d"), value.isoformat(sep=" ")}
    return {str(value)}


@BOUNDED
@given(data=st.data())
def test_literal_values_reach_postgresql_only_as_bound_parameters(data: st.DataObject) -> None:
    entity = ENTITIES[data.draw(st.sampled_from(sorted(ENTITIES)))]
    marked = data.draw(marked_filters(entity))
    query = parse_query({"$filter": marked.text}, entity)  # type-correct: always accepted
    assert query.filter is not None
    compiled = select(entity.key.expression).where(query.filter).compile(dialect=asyncpg_dialect())
    sql = str(compiled)  # literal_binds off: placeholders where values go
    assert MARK not in sql, sql
    for value in marked.values:
        for form in _forms(value):
            assert form not in sql, f"{form!r} written into the SQL: {sql}"
    # And each value is among the bound parameters, in one of those forms.
    bound = [
        item
        for param in compiled.params.values()
        for item in (param if isinstance(param, list) else [param])  # `in` lists: one parameter
    ]
    for value in marked.values:
        if isinstance(value, str):
            forms = _forms(value)
            assert any(isinstance(p, str) and any(f in p for f in forms) for p in bound), (
                value,
                bound,
            )
        else:
            assert value in bound, (value, bound)


# The slowest parse over the examples so far (seconds, input), named when the bound fails.
_SLOWEST: list[tuple[float, str]] = [(0.0, "")]


def _pathological() -> st.SearchStrategy[str]:
    """Inputs shaped to make a parser work hard, all within the 2 KB limit."""
    clause = "name eq 'x'"
    return st.one_of(
        st.integers(1, 170).map(lambda n: " and ".join([clause] * n)[:MAX_LENGTH]),
        st.integers(1, 400).map(lambda n: f"internalId in ({','.join(['1'] * n)})"[:MAX_LENGTH]),
        st.integers(1, 2040).map(lambda n: "'" + "''" * (n // 2)),
        st.integers(1, 2040).map(lambda n: "(" * n),
        st.integers(1, 500).map(lambda n: "not " * n + "true"),
        st.integers(1, 1000).map(lambda n: "-" * n + "1 eq internalId"),
        st.integers(1, 300).map(lambda n: "tolower(" * n + "name" + ")" * n + " eq 'x'"),
        st.integers(1, 600).map(lambda n: "a/" * n + "b eq 1"),
        st.lists(st.sampled_from(TOKENS), min_size=100, max_size=600).map(" ".join),
    ).map(lambda text: text[:MAX_LENGTH])


@BOUNDED
@given(data=st.data())
@example(data=None)  # the worst shapes, written out, checked every run
def test_parse_query_time_stays_bounded_up_to_the_2kb_limit(data: st.DataObject | None) -> None:
    # A guard against pathological input (a parser that backtracks or recurses without end),
    # not a timing test of normal work: the bound is generous, far above a normal parse, and it
    # is CPU time, which a busy machine's other processes do not inflate as they do wall time.
    if data is None:
        entity = BUGS
        inputs = [
            "(" * MAX_LENGTH,
            "not " * 511 + "true",
            "'" * MAX_LENGTH,
            "-" * MAX_LENGTH,
            " and ".join(["name eq 'x'"] * 128),  # 2,043 characters, valid
            "internalId in (" + ",".join(["7"] * 1015) + ")",  # 2,045 characters, valid
        ]
    else:
        entity = ENTITIES[data.draw(st.sampled_from(sorted(ENTITIES)))]
        inputs = [data.draw(st.one_of(any_filter(entity), _pathological()))]
    for text in inputs:
        text = text[:MAX_LENGTH]
        params = {"$filter": text, "$orderby": "_id desc", "$select": "_id"}
        started = time.process_time()
        try:
            parse_query(params, entity)
        except BadRequest:
            pass
        took = time.process_time() - started
        _SLOWEST[0] = max(_SLOWEST[0], (took, text[:200]))
        assert _SLOWEST[0][0] < 1.0, (
            f"parsing took {_SLOWEST[0][0]:.2f} s of CPU: {_SLOWEST[0][1]!r}"
        )


@BOUNDED
@given(data=st.data())
def test_filters_over_2kb_or_nested_deeper_than_10_are_refused(data: st.DataObject) -> None:
    entity = ENTITIES[data.draw(st.sampled_from(sorted(ENTITIES)))]
    text = data.draw(any_filter(entity)).strip()
    padding = data.draw(st.integers(1, 500))
    long = f"{text} and name eq '{'x' * max(0, MAX_LENGTH - len(text)) + 'y' * padding}'"
    assert len(long) > MAX_LENGTH
    with pytest.raises(
        BadRequest, match=f"Invalid \\$filter: it is longer than {MAX_LENGTH}"
    ) as too:
        parse_query({"$filter": long}, entity)
    assert too.value.status == 400
    # Nested deeper: a 400 in any case, and for a filter that is valid on its own, for its depth.
    valid = _accepted(text, entity)
    event("valid on its own" if valid else "refused on its own")
    extra = data.draw(st.integers(1, 5))
    for opening in ("(", "not ("):
        levels = MAX_DEPTH // len(opening.split()) + extra
        deep = opening * levels + text + ")" * levels
        if len(deep) > MAX_LENGTH:
            continue  # refused for its length, shown above
        with pytest.raises(BadRequest) as refused:
            parse_query({"$filter": deep}, entity)
        assert refused.value.status == 400
        if valid:
            assert f"nested deeper than {MAX_DEPTH} levels" in refused.value.message, deep


def _accepted(text: str, entity: EntitySet) -> bool:
    try:
        parse_query({"$filter": text}, entity)
    except BadRequest:
        return False
    return True

"""Hypothesis strategies for OData query options, shared by the OData fuzz tests.

The tests on the real lists and the tests without a database draw from one grammar, kept here:
the lists and their entity sets, literals of every kind, grammatical `$filter`s right or wrong
in their names, types and functions, near misses and junk, and the settings both run under.
"""

from datetime import UTC, datetime

from hypothesis import Phase, settings
from hypothesis import strategies as st

from bot.fields.queries import PRIORITIES, SEVERITIES, STATUSES
from bot.items.queries import entity_set
from bot.odata.model import EntitySet, PropertyKind
from bot.schemas import ItemKind

BUGS = entity_set(ItemKind.BUG)
TASKS = entity_set(ItemKind.TASK)
LISTS: dict[str, EntitySet] = {
    "/odata/bugs": BUGS,
    "/odata/tasks": TASKS,
    "/odata/status": STATUSES,
    "/api/priority": PRIORITIES,
    "/api/severity": SEVERITIES,
}

# No shrinking: each step of it costs a request and a draw from large strategies, minutes on a
# failure; the failing example is printed as generated (add Phase.shrink locally to minimise it).
PHASES = (Phase.explicit, Phase.generate)
BOUNDED = settings(max_examples=150, deadline=None, derandomize=True, database=None, phases=PHASES)

# --- literals of every kind ------------------------------------------------------------------

SPECIAL_TEXT = [
    "Ärger",
    "STRAẞE",
    "ΟΔΟΣ",
    "İstanbul",
    "ß",
    "😀",
    "\u200b",
    "e\u0301",
    "%",
    "_",
    "'",
    "''",
    "\\",
    "%_\\%",
    "a%b_c",
    "it's",
    '"',
    "--",
    "; DROP TABLE items; --",
    "' or 1=1 or 'a' eq '",
    "\t\n",
    "$date:2026-01-01",
]
# Text a column can hold: U+0000 is refused as a $filter's character (tested on its own).
text_characters = st.characters(exclude_characters="\x00")
texts = st.one_of(
    st.text(text_characters, max_size=24),
    st.text(alphabet="'%_\\\"*?[]^$-/(),:; ", max_size=12),
    st.sampled_from(SPECIAL_TEXT),
    # Long strings, cheap to build: a short unit repeated.
    st.tuples(st.text(text_characters, min_size=1, max_size=3), st.integers(60, 700)).map(
        lambda t: t[0] * t[1]
    ),
)


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


instants = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
)


def iso(moment: datetime, style: int) -> str:
    if style == 0:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
    if style == 1:
        return moment.isoformat()
    if style == 2:
        return moment.date().isoformat()
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


dates = st.builds(iso, instants, st.integers(0, 3))
# odata-query's plain date literals start at year 1000 (its pattern wants a first digit 1-9);
# `$date:` strings take any year.
plain_dates = st.builds(
    iso,
    st.datetimes(
        min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
    st.integers(0, 3),
)
bad_dates = st.sampled_from(
    ["2026-13-01", "2026-02-30", "2026-02-30T25:61:61Z", "0000-01-01", "9999-12-31T23:59:60Z"]
)
string_literals = texts.map(quoted)
date_literals = st.one_of(
    dates,
    bad_dates,
    dates.map(lambda d: quoted("$date:" + d)),
    bad_dates.map(lambda d: quoted("$date:" + d)),
    texts.map(lambda t: quoted("$date:" + t)),
)
number_literals = st.one_of(
    st.integers(-(2**70), 2**70).map(str),
    st.integers(-5, 5).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["0.5", "1e3", "-1.5e-3", "007", "1.", ".5", "INF", "NaN", "-0"]),
)
literals = st.one_of(
    string_literals,
    number_literals,
    date_literals,
    st.sampled_from(["true", "false", "null", "duration'P1DT2H'", "geography'POINT(0 0)'"]),
    st.uuids().map(str),
)


def literal_for(kind: PropertyKind) -> st.SearchStrategy[str]:
    """A literal usually of the property's own type, sometimes of any other."""
    own = {
        PropertyKind.TEXT: string_literals,
        PropertyKind.NAME: string_literals,
        PropertyKind.ID: st.one_of(string_literals, st.just(quoted("0" * 24))),
        PropertyKind.INTEGER: number_literals,
        PropertyKind.BOOLEAN: st.sampled_from(["true", "false"]),
        PropertyKind.DATETIME: date_literals,
    }[kind]
    return st.one_of(own, own, own, literals, st.just("null"))


# --- grammatical filters ---------------------------------------------------------------------

COMPARATORS = ["eq", "ne", "gt", "ge", "lt", "le"]
LIKE_FUNCTIONS = ["contains", "startswith", "endswith"]
OTHER_FUNCTIONS = ["length", "indexof", "concat", "year", "trim", "now", "round", "substring"]
UNKNOWN_NAMES = ["nope", "Name", "_ID", "teamid", "password", "u", "assignedTo/email", "a.b"]


def names_of(entity: EntitySet) -> list[str]:
    return sorted(entity.properties)


@st.composite
def comparisons(draw: st.DrawFn, entity: EntitySet) -> str:
    """`prop op literal`, mirrored, between properties, through tolower/toupper, or with `in`."""
    name = draw(st.sampled_from(names_of(entity) + UNKNOWN_NAMES[:3]))
    prop = entity.properties.get(name)
    kind = prop.kind if prop else PropertyKind.TEXT
    value = draw(literal_for(kind))
    op = draw(st.sampled_from([*COMPARATORS, *COMPARATORS, "has", "=="]))
    shape = draw(st.integers(0, 6))
    if shape == 0:
        return f"{value} {op} {name}"
    if shape == 1:
        other = draw(st.sampled_from(names_of(entity)))
        return f"{name} {op} {other}"
    if shape == 2:
        case = draw(st.sampled_from(["tolower", "toupper"]))
        return f"{case}({name}) {op} {value}"
    if shape == 3:
        values = draw(st.lists(literal_for(kind), max_size=6))
        return f"{name} in ({', '.join(values)})"
    if shape == 4 and kind is PropertyKind.BOOLEAN:
        return name
    return f"{name} {op} {value}"


@st.composite
def calls(draw: st.DrawFn, entity: EntitySet) -> str:
    """Text functions (the OData v2 substringof too), and functions the lists do not offer."""
    name = draw(st.sampled_from(names_of(entity)))
    text = draw(string_literals)
    shape = draw(st.integers(0, 5))
    if shape <= 2:
        function = draw(st.sampled_from(LIKE_FUNCTIONS))
        subject = name if shape < 2 else f"tolower({name})"
        return f"{function}({subject}, {text})"
    if shape == 3:
        return f"substringof({text}, {name})"
    function = draw(st.sampled_from(OTHER_FUNCTIONS + ["frobnicate", "tolower"]))
    arguments = draw(st.lists(st.one_of(st.just(name), literals), max_size=3))
    call = f"{function}({', '.join(arguments)})"
    return call if shape == 4 else f"{call} {draw(st.sampled_from(COMPARATORS))} {text}"


@st.composite
def lambdas(draw: st.DrawFn, entity: EntitySet) -> str:
    """any/all over a collection (or over what is not one), nested, with stray variables."""
    collection = draw(st.sampled_from([*entity.collections, "name", "nope"]))
    operator = draw(st.sampled_from(["any", "all"]))
    if draw(st.integers(0, 8)) == 0:
        return f"{collection}/{operator}()"
    variable = draw(st.sampled_from(["u", "x", "u.v"]))
    members = (
        sorted(entity.collections[collection].properties)
        if collection in entity.collections
        else []
    )
    member = draw(st.sampled_from([*members, "nope"]))
    owner = draw(st.sampled_from([variable, variable, "u", "assignedTo"]))
    inner = f"{owner}/{member} {draw(st.sampled_from(COMPARATORS))} {draw(literals)}"
    shape = draw(st.integers(0, 5))
    if shape == 0:
        inner = (
            f"{draw(st.sampled_from(LIKE_FUNCTIONS))}({owner}/{member}, {draw(string_literals)})"
        )
    elif shape == 1:
        inner = f"{collection}/any(v: v/{member} eq {draw(literals)})"  # nested: refused
    elif shape == 2:
        inner = f"{inner} and not ({owner}/{member} eq null)"
    elif shape == 3:
        inner = variable
    return f"{collection}/{operator}({variable}: {inner})"


TEXTUAL = (PropertyKind.TEXT, PropertyKind.NAME, PropertyKind.ID)
valid_dates = st.one_of(plain_dates, dates.map(lambda d: quoted("$date:" + d)))


def valid_literal(kind: PropertyKind) -> st.SearchStrategy[str]:
    """A literal the property's type takes."""
    if kind in TEXTUAL:
        return string_literals
    if kind is PropertyKind.INTEGER:
        return st.integers(-(2**31), 2**31 - 1).map(str)
    if kind is PropertyKind.BOOLEAN:
        return st.sampled_from(["true", "false"])
    return valid_dates


@st.composite
def valid_leaves(draw: st.DrawFn, entity: EntitySet) -> str:
    """A condition the list accepts: every property, operator and function it offers."""
    name = draw(st.sampled_from(names_of(entity)))
    kind = entity.properties[name].kind
    op = draw(st.sampled_from(COMPARATORS))
    value = draw(valid_literal(kind))
    shape = draw(st.integers(0, 9))
    if kind is PropertyKind.BOOLEAN and shape < 3:
        return draw(st.sampled_from([name, f"not {name}", f"{name} eq {value}"]))
    if shape == 0:
        return f"{name} {draw(st.sampled_from(['eq', 'ne']))} null"
    if shape == 1:
        return f"{value} {op} {name}"
    if shape == 2:
        values = draw(st.lists(valid_literal(kind) | st.just("null"), min_size=1, max_size=6))
        return f"{name} in ({', '.join(values)})"
    if shape == 3:
        same = [n for n in names_of(entity) if entity.properties[n].kind is kind]
        return f"{name} {op} {draw(st.sampled_from(same))}"
    if shape in (4, 5) and kind in TEXTUAL:
        function = draw(st.sampled_from([*LIKE_FUNCTIONS, "substringof"]))
        text = draw(string_literals)
        if function == "substringof":
            return f"substringof({text}, {name})"
        return f"{function}({name}, {text})"
    if shape == 6 and kind in TEXTUAL:
        return f"{draw(st.sampled_from(['tolower', 'toupper']))}({name}) {op} {value}"
    if shape in (7, 8) and entity.collections:
        collection = draw(st.sampled_from(sorted(entity.collections)))
        members = sorted(entity.collections[collection].properties)
        member = draw(st.sampled_from(members))
        condition = f"u/{member} {op} {draw(string_literals)}"
        if draw(st.booleans()):
            other = draw(st.sampled_from(members))
            like = draw(st.sampled_from(LIKE_FUNCTIONS))
            text = draw(string_literals)
            condition += f" {draw(st.sampled_from(['and', 'or']))} {like}(u/{other}, {text})"
        if shape == 8 and draw(st.integers(0, 4)) == 0:
            return f"{collection}/any()"
        return f"{collection}/{draw(st.sampled_from(['any', 'all']))}(u: {condition})"
    return f"{name} {op} {value}"


def combined(
    leaves: st.SearchStrategy[str], max_leaves: int, *, strict: bool
) -> st.SearchStrategy[str]:
    """Leaves combined with and/or/not and parentheses, nested. Not `strict`: also `not x` and
    `not(x)`, which OData reads as `(not x) ...` and as a call of a function `not`."""

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        shapes = [
            st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(" ".join),
            inner.map(lambda text: f"not ({text})"),
            inner.map(lambda text: f"({text})"),
        ]
        if not strict:
            shapes += [inner.map(lambda text: f"not {text}"), inner.map(lambda t: f"not({t})")]
        return st.one_of(shapes)

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def valid_filters(entity: EntitySet) -> st.SearchStrategy[str]:
    return combined(valid_leaves(entity), 6, strict=True)


def filters(entity: EntitySet) -> st.SearchStrategy[str]:
    """Grammatical `$filter`s, right or wrong in their names, types and functions."""
    leaves = st.one_of(
        valid_leaves(entity),
        comparisons(entity),
        calls(entity),
        lambdas(entity) if entity.collections else comparisons(entity),
        st.sampled_from(["true", "false", "internalId add 1 eq 2", "-internalId eq 1", "null"]),
    )
    return combined(leaves, 8, strict=False)


# --- near misses and junk --------------------------------------------------------------------

TOKENS = [
    "(", ")", "'", "''", ",", "/", ":", " ", "eq", "and", "or", "not", "in", "any", "all", "$",
    "%", "_", "\\", "\x00", "-", "name", "status", "u", "null", "1", "2026-01-01", "'$date:",
]  # fmt: skip


@st.composite
def near_misses(draw: st.DrawFn, entity: EntitySet) -> str:
    """A grammatical filter with a few characters deleted, inserted, repeated or cut off."""
    text = draw(filters(entity))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.integers(0, 4))
        if edit == 0:
            text = text[:at] + text[at + draw(st.integers(1, 4)) :]
        elif edit == 1:
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif edit == 2:
            text = text[:at] + text[at : at + 3] * draw(st.integers(2, 12)) + text[at:]
        elif edit == 3:
            text = text[:at]
        else:
            text = text[:at] + draw(st.text(min_size=1, max_size=3)) + text[at:]
    return text


def junk(entity: EntitySet) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=80),
        st.lists(st.sampled_from(TOKENS), max_size=40).map("".join),
        st.lists(st.sampled_from(TOKENS), max_size=40).map(" ".join),
        near_misses(entity),
        near_misses(entity),
    )


@st.composite
def any_filter(draw: st.DrawFn, entity: EntitySet) -> str:
    """Half valid filters, the rest grammatical mistakes, near misses and junk."""
    pick = draw(st.integers(0, 9))
    if pick < 5:
        return draw(valid_filters(entity))
    return draw(filters(entity) if pick < 8 else junk(entity))

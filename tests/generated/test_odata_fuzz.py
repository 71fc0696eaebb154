"""OData query options fuzzed: grammatical filters, near misses and junk against the real lists.

Over HTTP, on both databases: whatever `$filter`, `$orderby` and `$select` say, the answer is a
200 with rows of the caller's channel only, or a 400 `{"error": ...}`, never a 5xx. Without a
database: literal values reach PostgreSQL's SQL only as bound parameters, parsing stays fast on
inputs up to the 2 KB limit, and longer or deeper filters are refused.
"""

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, Phase, event, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect

from bot.db.tables import Channel, FieldValue, Item
from bot.errors import BadRequest
from bot.fields.queries import PRIORITIES, SEVERITIES, STATUSES
from bot.items.queries import entity_set
from bot.odata.model import EntitySet, PropertyKind
from bot.odata.parse import MAX_DEPTH, MAX_LENGTH
from bot.odata.query import parse_query
from bot.odata.text import escape_like
from bot.schemas import ItemKind
from bot.uow import ChannelScope
from tests.factories import CHANNEL, TEAM, Factory, Member

TEAM_B = "19:team-b@thread.tacv2"
CHANNEL_B = "19:channel-b@thread.tacv2"
# The entity sets of item lists depend on the caller's channel; this stand-in serves the
# strategies (which read property names and kinds) and the SQL compiled without a database.
SCOPE = ChannelScope("a" * 24, TEAM, "b" * 24, CHANNEL, "group-a", None)
BUGS = entity_set(ItemKind.BUG, SCOPE)
TASKS = entity_set(ItemKind.TASK, SCOPE)
LISTS: dict[str, EntitySet] = {
    "/odata/bugs": BUGS,
    "/odata/tasks": TASKS,
    "/odata/status": STATUSES,
    "/api/priority": PRIORITIES,
    "/api/severity": SEVERITIES,
}
# The field value lists and the field each shows.
FIELD_LISTS = {"/odata/status": "status", "/api/priority": "priority", "/api/severity": "severity"}
ENTITIES = {entity.name: entity for entity in LISTS.values()}

# No shrinking: each step of it costs a request and a draw from large strategies, minutes on a
# failure; the failing example is printed as generated (add Phase.shrink locally to minimise it).
PHASES = (Phase.explicit, Phase.generate)
BOUNDED = settings(max_examples=150, deadline=None, derandomize=True, database=None, phases=PHASES)
FUZZ = settings(
    BOUNDED,
    # The app, its database and the rows are built once per test and shared by its examples.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

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
texts = st.one_of(
    st.text(max_size=24),
    st.text(alphabet="'%_\\\"*?[]^$-/(),:; ", max_size=12),
    st.sampled_from(SPECIAL_TEXT),
    # Long strings, cheap to build: a short unit repeated.
    st.tuples(st.text(min_size=1, max_size=3), st.integers(60, 700)).map(lambda t: t[0] * t[1]),
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


# --- $orderby and $select --------------------------------------------------------------------


def valid_orderings(entity: EntitySet) -> st.SearchStrategy[str]:
    """Keys the list sorts by, each once, in any direction."""
    sortable = sorted(name for name, prop in entity.properties.items() if prop.sortable)
    direction = st.sampled_from(["", " asc", " desc", " DESC", "  asc"])

    def directed(names: list[str]) -> st.SearchStrategy[list[str]]:
        return st.lists(direction, min_size=len(names), max_size=len(names)).map(
            lambda ways: [name + way for name, way in zip(names, ways, strict=True)]
        )

    keys = st.lists(st.sampled_from(sortable), min_size=1, max_size=3, unique=True).flatmap(
        directed
    )
    return st.one_of(keys.map(",".join), keys.map(", ".join))


def orderings(entity: EntitySet) -> st.SearchStrategy[str]:
    """Mostly keys the list sorts by; sometimes names it does not, bad directions or junk."""
    key = st.tuples(
        st.sampled_from(sorted(entity.selectable) + UNKNOWN_NAMES),
        st.sampled_from(["", " asc", " desc", " up", " asc desc"]),
    ).map("".join)
    return st.one_of(
        valid_orderings(entity),
        valid_orderings(entity),
        st.lists(key, min_size=1, max_size=4).map(",".join),
        st.text(max_size=30),
    )


def valid_selections(entity: EntitySet) -> st.SearchStrategy[str]:
    names = st.lists(st.sampled_from(sorted(entity.selectable)), min_size=1, max_size=6)
    return st.one_of(names.map(",".join), names.map(", ".join), st.just("*"))


def selections(entity: EntitySet) -> st.SearchStrategy[str]:
    """Mostly names the list selects; sometimes unknown names, blanks or junk."""
    wrong = [*sorted(entity.selectable), *UNKNOWN_NAMES, "", " name"]
    return st.one_of(
        valid_selections(entity),
        valid_selections(entity),
        st.lists(st.sampled_from(wrong), min_size=1, max_size=6).map(",".join),
        st.text(max_size=30),
    )


PAGING = {"$top": ["0", "1", "5", "1000", "5000"], "$skip": ["0", "1", "5"], "$count": ["true"]}
BAD_PAGING = ["-1", "x", "1.5", "", "9" * 40, "TRUE"]


@st.composite
def list_requests(draw: st.DrawFn, *, filtered: bool) -> tuple[str, dict[str, str]]:
    """A list path and its query options. `filtered`: any `$filter`, the other options now and
    then and valid. Otherwise: any `$orderby` and `$select`, a valid `$filter` now and then."""
    path = draw(st.sampled_from(sorted(LISTS)))
    entity = LISTS[path]
    params: dict[str, str] = {}
    sometimes = st.integers(0, 3).map(lambda n: n == 0)
    if filtered:
        params["$filter"] = draw(any_filter(entity))
        if draw(sometimes):
            params["$orderby"] = draw(valid_orderings(entity))
        if draw(sometimes):
            params["$select"] = draw(valid_selections(entity))
    else:
        params["$orderby"] = draw(orderings(entity))
        params["$select"] = draw(selections(entity))
        if draw(sometimes):
            params["$filter"] = draw(valid_filters(entity))
    for option, values in PAGING.items():
        if draw(sometimes):
            wrong = not filtered and draw(sometimes)
            params[option] = draw(st.sampled_from(BAD_PAGING if wrong else values))
    return path, params


# --- the real lists, on both databases -------------------------------------------------------


@dataclass
class Caller:
    member: Member
    ids: dict[str, set[str]]  # per list path: the `_id`s of the caller's channel


async def _create(client: TestClient, headers: dict[str, str], path: str, **body: Any) -> None:
    response = await client.post(path, json=body, headers=headers)
    assert response.status == 201, await response.text()


@pytest.fixture
async def caller(client: TestClient, factory: Factory) -> Caller:
    """Ada in Team A with varied bugs and tasks; Team B with its own, which must never show."""
    ada = await factory.member("Ada Ärger")
    grace = await factory.member("Grace O'Hara")
    await factory.team(TEAM_B, name="Team B")
    await factory.channel(CHANNEL_B, team_id=TEAM_B)
    eve = await factory.member("Eve", team_id=TEAM_B)
    names = ["Ärger im Büro", "100% done", "snake_case", "it's quoted", "ΟΔΟΣ", "back\\slash"]
    for number, name in enumerate(names):
        fields: dict[str, Any] = {
            "name": name,
            "body": f"{name} " * 3,
            "dueDate": f"2026-12-{number + 1:02d}",
            "assignedTo": [ada.user.id] if number % 2 else [grace.user.id, ada.user.id],
        }
        if number % 3 == 0:
            fields["status"] = "In Progress"
        for path in ("/odata/bugs", "/odata/tasks"):
            await _create(client, ada.in_channel(), path, **fields)
            await _create(client, eve.in_channel(TEAM_B, CHANNEL_B), path, name=name)
    await _create(
        client, ada.in_channel(), "/odata/status", name="Ärger", type="Bug", category="New"
    )
    async with factory.work() as uow:
        session = uow.session
        own = await session.scalar(select(Channel.id).where(Channel.teams_id == CHANNEL))
        mine = (Item.channel_id == own,)
        ids = {
            "/odata/bugs": set(
                await session.scalars(select(Item.id).where(*mine, Item.kind == "bug"))
            ),
            "/odata/tasks": set(
                await session.scalars(select(Item.id).where(*mine, Item.kind == "task"))
            ),
        }
        for path, field in FIELD_LISTS.items():
            ids[path] = set(
                await session.scalars(
                    select(FieldValue.id).where(
                        FieldValue.channel_id == own, FieldValue.field == field
                    )
                )
            )
    assert all(ids.values())
    return Caller(ada, ids)


OPTION_ERROR = re.compile(r"Invalid \$(filter|orderby|select|top|skip|count): .")


async def _ask(client: TestClient, caller: Caller, path: str, params: dict[str, str]) -> None:
    response = await client.get(path, params=params, headers=caller.member.in_channel())
    payload = await response.json()
    what = f"GET {path} {params!r}: {response.status} {payload!r}"[:3000]
    assert response.status in (200, 400), what
    if response.status == 400:
        event("400")
        assert list(payload) == ["error"] and isinstance(payload["error"], str), what
        assert OPTION_ERROR.match(payload["error"]), what  # names the option at fault
        return
    event("200 with rows" if payload["value"] else "200, no rows")
    for row in payload["value"]:
        assert row["_id"] in caller.ids[path], what
        assert row.get("teamId", TEAM) == TEAM and row.get("channelId", CHANNEL) == CHANNEL, what


@FUZZ
@given(request=list_requests(filtered=True))
async def test_any_filter_answers_200_with_own_rows_or_400(
    client: TestClient, caller: Caller, request: tuple[str, dict[str, str]]
) -> None:
    await _ask(client, caller, *request)


@FUZZ
@given(request=list_requests(filtered=False))
async def test_any_orderby_and_select_answer_200_with_own_rows_or_400(
    client: TestClient, caller: Caller, request: tuple[str, dict[str, str]]
) -> None:
    await _ask(client, caller, *request)


# --- without a database: bound parameters, parse time, limits --------------------------------

# Marks every generated text value, so the check below cannot match SQL's own words by chance.
MARK = "§"
# Texts short enough that a few of them stay within the 2 KB limit of a filter.
marked_texts = st.one_of(
    st.text(max_size=24),
    st.sampled_from(SPECIAL_TEXT),
    st.tuples(st.text(min_size=1, max_size=3), st.integers(20, 100)).map(lambda t: t[0] * t[1]),
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

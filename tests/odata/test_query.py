"""parse_query: options become a Query; every mistake is a 400 that names the option."""

import random

import pytest
from sqlalchemy.dialects import postgresql

from bot.errors import BadRequest
from bot.odata.parse import MAX_DEPTH, MAX_LENGTH
from bot.odata.query import MAX_TOP, parse_query
from tests.odata.probe import PROBES


def test_defaults() -> None:
    query = parse_query({}, PROBES)
    assert (query.filter, query.top, query.skip, query.count, query.select) == (
        None,
        100,
        0,
        False,
        None,
    )
    assert [(key.property.name, key.descending) for key in query.order] == [
        ("internalId", False),
        ("_id", False),
    ]


def test_the_key_ends_every_order_once() -> None:
    order = parse_query({"$orderby": "name desc,_id desc"}, PROBES).order
    assert [(key.property.name, key.descending) for key in order] == [
        ("name", True),
        ("_id", True),
    ]


def test_count_follows_the_endpoints_default_unless_asked() -> None:
    assert parse_query({}, PROBES, count_by_default=True).count
    assert not parse_query({"$count": "false"}, PROBES, count_by_default=True).count
    assert parse_query({"$count": "TRUE"}, PROBES).count


def test_top_is_clamped_and_huge_numbers_are_read_safely() -> None:
    assert parse_query({"$top": "1001"}, PROBES).top == MAX_TOP
    assert parse_query({"$top": "9" * 5000}, PROBES).top == MAX_TOP
    assert parse_query({"$skip": "9" * 5000}, PROBES).skip == 10**18


def test_select_keeps_the_key_and_accepts_collections_and_output_fields() -> None:
    assert parse_query({"$select": "name, dueDate"}, PROBES).select == ("_id", "name", "dueDate")
    assert parse_query({"$select": "assignedTo,links,_id"}, PROBES).select == (
        "_id",
        "assignedTo",
        "links",
    )
    assert parse_query({"$select": "*"}, PROBES).select is None


def test_other_parameters_are_ignored() -> None:
    assert parse_query({"foo": "bar", "filter": "nonsense"}, PROBES).filter is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"$expand": "assignedTo"}, "Unsupported query option: $expand"),
        ({"$foo": "1"}, "Unsupported query option: $foo"),
        ({"$Filter": "done"}, "Unsupported query option: $Filter"),
        ({"$top": "-1"}, "Invalid $top: expected a whole number, 0 or more"),
        ({"$top": "1.5"}, "Invalid $top: expected a whole number, 0 or more"),
        ({"$top": ""}, "Invalid $top: expected a whole number, 0 or more"),
        ({"$top": "١٢"}, "Invalid $top: expected a whole number, 0 or more"),
        ({"$skip": "x"}, "Invalid $skip: expected a whole number, 0 or more"),
        ({"$count": "yes"}, "Invalid $count: expected true or false"),
        ({"$select": "name,nope"}, "Invalid $select: unknown property 'nope'"),
        ({"$select": "name,,done"}, "Invalid $select: an empty name"),
        ({"$orderby": "nope"}, "Invalid $orderby: unknown property 'nope'"),
        ({"$orderby": "owner"}, "Invalid $orderby: 'owner' cannot be sorted"),
        ({"$orderby": "assignedTo"}, "Invalid $orderby: 'assignedTo' cannot be sorted"),
        ({"$orderby": "name,name desc"}, "Invalid $orderby: 'name' is listed twice"),
        ({"$orderby": "name sideways"}, "Invalid $orderby: expected 'property', 'property asc'"),
        ({"$orderby": "name,"}, "Invalid $orderby: expected 'property'"),
        ({"$orderby": "name asc desc"}, "Invalid $orderby: expected 'property'"),
    ],
)
def test_bad_options(params: dict[str, str], message: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_query(params, PROBES)
    assert refused.value.message.startswith(message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # unknown names
        ("nope eq 1", "unknown property 'nope'"),
        ("Name eq 'a'", "unknown property 'Name'"),
        ("ns.name eq 'a'", "unknown property 'ns.name'"),
        ("year(dueDate) eq 2026", "unsupported function 'year'"),
        ("foo(name)", "unknown function 'foo'"),
        ("contains(name)", "contains() takes 2 arguments, not 1"),
        # types
        ("internalId eq 'x'", "'internalId' takes a whole number, not a string"),
        ("internalId eq 1.5", "'internalId' takes a whole number, not a decimal number"),
        ("internalId eq 99999999999", "99999999999 is out of range for 'internalId'"),
        ("name eq 5", "'name' takes text (a quoted string), not a whole number"),
        ("status eq true", "'status' takes a name (a quoted string), not true or false"),
        ("done eq 1", "'done' takes true or false, not a whole number"),
        ("dueDate gt 5", "'dueDate' takes a date and time (2026-01-01T00:00:00Z), not a whole"),
        ("dueDate gt 'tomorrow'", "'dueDate' takes a date and time"),
        ("dueDate gt '$date:tomorrow'", "'tomorrow' is not a valid date and time"),
        ("dueDate gt 2026-02-30T00:00:00Z", "'2026-02-30T00:00:00Z' is not a valid date and time"),
        ("dueDate gt 2026-02-30", "'2026-02-30' is not a valid date and time"),
        ("dueDate gt 12:00:00", "'dueDate' takes a date and time"),
        ("internalId in (1, 'a')", "'internalId' takes a whole number, not a string"),
        ("contains(internalId, 'a')", "contains() looks in a text property, not 'internalId'"),
        ("contains(name, 5)", "contains() looks for a quoted string, not a whole number"),
        ("contains(name, owner)", "contains() looks for a quoted string, not 'owner'"),
        ("substringof(name, 'a')", "substringof() looks in a text property, not a string"),
        ("tolower(internalId) eq 'a'", "tolower() takes text, not 'internalId'"),
        ("tolower(name)", "tolower() gives text, not a condition"),
        ("dueDate eq name", "cannot compare 'dueDate' with 'name': their types differ"),
        ("internalId gt null", "only eq and ne compare 'internalId' with null"),
        ("1 eq 1", "cannot compare a whole number with a whole number"),
        ("name", "'name' is not true or false"),
        ("'a'", "a string is not a condition"),
        ("internalId add 1 eq 2", "arithmetic is not supported"),
        ("not status eq 'New'", "'status' is not true or false"),  # not binds tighter than eq
        ("name in (owner, 'a')", "'name' takes text (a quoted string), not 'owner'"),
        ("(internalId eq 1) eq 2", "cannot compare a condition with a whole number"),
        # collections
        ("assignedTo eq 'a'", "'assignedTo' is a collection: use assignedTo/any(…)"),
        ("assignedTo/email eq 'a'", "'assignedTo' is a collection"),
        ("status/any()", "'status' is not a collection; any() and all() apply to assignedTo"),
        ("assignedTo/any(u: u eq 'a')", "'u' is a whole element of assignedTo; use u/email"),
        ("assignedTo/any(u: u/nope eq 'a')", "unknown property 'u/nope'"),
        ("assignedTo/any(u: x/email eq 'a')", "unknown property 'x/email'"),
        ("assignedTo/any(u: assignedTo/any())", "any() and all() cannot be nested"),
        # syntax
        ("name eq 'abc", "the string at character 9 is not closed"),
        ("name eq", "unexpected 'eq' at character 6"),
        ("name eq ", "unexpected 'eq' at character 6"),
        ("name eq 'a' and", "unexpected 'and' at character 13"),
        ("contains(name, 'a'", "it ends too early"),
        ("(name eq 'a'", "it ends too early"),
        ("name eq 'a')", "unexpected ')' at character 12"),
        ("name eq 'a' # x", "unexpected '#' at character 13"),
        ("name eq datetime'2026-01-01T00:00:00'", "unexpected"),
        ("", "it is empty"),
        ("   ", "it is empty"),
        ("name eq 'a\x00'", "it contains characters that are not valid text"),
        ("name eq '\ud800'", "it contains characters that are not valid text"),
        # limits
        ("x" * (MAX_LENGTH + 1), f"it is longer than {MAX_LENGTH} characters"),
        ("(" * (MAX_DEPTH + 1) + "done" + ")" * (MAX_DEPTH + 1), "it is nested deeper than 10"),
        ("not " * (MAX_DEPTH + 1) + "done", "it is nested deeper than 10 levels"),
        ("-" * 2000 + "1 eq internalId", "it is nested deeper than 10 levels"),
        ("a/" * 500 + "b eq 1", "it is nested deeper than 10 levels"),
        ("(" * 1000, "it is nested deeper than 10 levels"),
    ],
)
def test_bad_filters(text: str, message: str) -> None:
    with pytest.raises(BadRequest) as refused:
        parse_query({"$filter": text}, PROBES)
    assert refused.value.message.startswith(f"Invalid $filter: {message}")


def test_nesting_up_to_the_limit_is_accepted() -> None:
    deep = "(" * MAX_DEPTH + "done" + ")" * MAX_DEPTH
    negated = "not " * MAX_DEPTH + "done"
    lambdas = "not (assignedTo/any(u: not (u/email eq 'a')))"
    for text in (deep, negated, lambdas):
        assert parse_query({"$filter": text}, PROBES).filter is not None


def test_random_input_is_answered_or_refused_never_crashes() -> None:
    pieces = [
        "(", ")", ",", "/", ":", " ", "'", "''", "-", "not ", " and ", " or ", " eq ", " in ",
        "any(", "all(", "u", "u/email", "name", "internalId", "dueDate", "assignedTo", "done",
        "contains(", "substringof(", "tolower(", "'a'", "1", "2026-01-01", "null", "true", "$",
    ]  # fmt: skip
    chance = random.Random(20261121)
    for _ in range(3000):
        text = "".join(chance.choices(pieces, k=chance.randint(1, 25)))
        try:
            parse_query({"$filter": text}, PROBES)
        except BadRequest as refused:
            assert refused.message.startswith("Invalid $filter: ")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("name eq 'secret-text'", "secret-text"),
        ("contains(name, 'secret%')", "secret"),
        ("status eq 'Secret-Status'", "Secret-Status"),
        ("status in ('secret-a', 'secret-b')", "secret-a"),
        ("internalId eq 424242", "424242"),
        ("dueDate gt '$date:2031-07-04T00:00:00Z'", "2031"),
        ("assignedTo/any(u: u/email eq 'secret@example.com')", "secret@example.com"),
        ("name eq 'x'' OR 1=1 --'", "OR 1=1"),
    ],
)
def test_values_reach_sql_only_as_bound_parameters(text: str, value: str) -> None:
    condition = parse_query({"$filter": text}, PROBES).filter
    assert condition is not None
    compiled = condition.compile(dialect=postgresql.dialect())
    assert value not in str(compiled)
    assert value in repr(compiled.params)

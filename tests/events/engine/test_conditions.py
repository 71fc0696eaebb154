"""The condition evaluator, table-driven: every operator on every kind of field, and groups."""

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.events.conditions import Person, Subject, evaluate
from bot.events.schemas import ConditionField, RuleConditions

F = ConditionField
ADA = Person("u1", "oid-1", "ada@contoso.test", "ada@contoso.test", "Ada Lovelace")
GRACE = Person("u2", "oid-2", "grace@contoso.test", None, "Grace Hopper")
DUE = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)
ITEM = Subject(
    values={
        F.NAME: "Printer on Fire",
        F.BODY: "",
        F.STATUS: "In Progress",
        F.STATUS_CATEGORY: "Active",
        F.PRIORITY: "High",
        F.SEVERITY: None,
        F.SOURCE: "Svc.Native",
        F.PHASE: None,
        F.BUCKET_NAME: "Ops",
        F.START_DATE: None,
        F.DUE_DATE: DUE,
        F.ASSIGNED_TO: [ADA, GRACE],
    },
    changed={F.PRIORITY: "High", F.STATUS_CATEGORY: "Active", F.DUE_DATE: DUE},
)
NOBODY = Subject(values={**ITEM.values, F.ASSIGNED_TO: []}, changed={})

CASES: list[tuple[str, str, str | None, bool]] = [
    # text: without case
    ("name", "Is", "printer ON fire", True),
    ("name", "Is", "printer", False),
    ("name", "IsNot", "printer", True),
    ("name", "IsNot", "PRINTER ON FIRE", False),
    ("name", "Contains", "ON FI", True),
    ("name", "Contains", "ice", False),
    ("name", "NotContains", "ice", True),
    ("name", "NotContains", "fire", False),
    ("name", "StartsWith", "PRINTER", True),
    ("name", "StartsWith", "fire", False),
    ("bucketName", "HasValue", None, True),
    ("body", "HasValue", None, False),  # an empty text has no value
    ("body", "HasNoValue", None, True),
    ("phase", "HasNoValue", None, True),
    ("severity", "Is", "High", False),  # no value is never equal
    ("severity", "IsNot", "High", True),
    ("severity", "StartsWith", "H", False),
    ("status", "Is", "in progress", True),
    ("priority", "IsNot", "Normal", True),
    ("source", "Is", "svc.native", True),
    # status category
    ("statusCategory", "Is", "Active", True),
    ("statusCategory", "Is", "Done", False),
    ("statusCategory", "IsNot", "Done", True),
    # dates, as instants whatever the offset written
    ("dueDate", "Is", "2026-12-01T10:30:00+01:00", True),
    ("dueDate", "Is", "2026-12-01T00:00:00.000Z", False),
    ("dueDate", "IsNot", "2026-12-01T00:00:00.000Z", True),
    ("dueDate", "GreaterThan", "2026-12-01T00:00:00.000Z", True),
    ("dueDate", "GreaterThan", "2026-12-01T09:30:00.000Z", False),
    ("dueDate", "LessThan", "2026-12-02T00:00:00.000Z", True),
    ("dueDate", "LessThan", "2026-12-01T09:30:00.000Z", False),
    ("startDate", "GreaterThan", "2000-01-01T00:00:00.000Z", False),  # no date: neither
    ("startDate", "LessThan", "2100-01-01T00:00:00.000Z", False),
    ("startDate", "HasNoValue", None, True),
    ("dueDate", "HasValue", None, True),
    # people: any assignee named by id, Entra id, UPN, email or display name
    ("assignedTo", "Contains", "u2", True),
    ("assignedTo", "Contains", "OID-1", True),
    ("assignedTo", "Contains", "Grace@Contoso.test", True),
    ("assignedTo", "Contains", "grace hopper", True),
    ("assignedTo", "Contains", "linus", False),
    ("assignedTo", "NotContains", "linus", True),
    ("assignedTo", "NotContains", "ada lovelace", False),
    ("assignedTo", "HasValue", None, True),
    ("assignedTo", "HasNoValue", None, False),
    # the change
    ("priority", "Changed", None, True),
    ("name", "Changed", None, False),
    ("priority", "ChangedTo", "high", True),
    ("priority", "ChangedTo", "Low", False),
    ("name", "ChangedTo", "Printer on Fire", False),  # not changed: not changed to
    ("statusCategory", "ChangedTo", "Active", True),
    ("dueDate", "ChangedTo", "2026-12-01T09:30:00Z", True),
]


def rule(*groups: tuple[str, list[tuple[str, str, str | None]]], ops: str = "and") -> Any:
    return RuleConditions.model_validate(
        {
            "ops": ops,
            "groups": [
                {
                    "ops": group_ops,
                    "conditions": [
                        {"field": field, "ops": op, "value": value}
                        for field, op, value in conditions
                    ],
                }
                for group_ops, conditions in groups
            ],
        }
    )


@pytest.mark.parametrize(("field", "ops", "value", "holds"), CASES)
def test_each_operator_on_each_kind_of_field(
    field: str, ops: str, value: str | None, holds: bool
) -> None:
    verdict = evaluate(rule(("and", [(field, ops, value)])), ITEM)
    assert verdict.fires is holds
    assert verdict.decided_by is not None
    assert (verdict.decided_by.field, verdict.decided_by.ops) == (field, ops)


@pytest.mark.parametrize(
    ("field", "ops", "value"),
    [
        ("priority", "Changed", None),
        ("priority", "ChangedTo", "High"),
        ("statusCategory", "Changed", None),
    ],
)
def test_an_event_with_no_change_never_changed_anything(
    field: str, ops: str, value: str | None
) -> None:
    verdict = evaluate(rule(("and", [(field, ops, value)])), NOBODY)
    assert verdict.fires is False
    assert "did not change" in verdict.reason


def test_no_assignees_contain_nobody_and_have_no_value() -> None:
    assert evaluate(rule(("and", [("assignedTo", "Contains", "u1")])), NOBODY).fires is False
    assert evaluate(rule(("and", [("assignedTo", "HasNoValue", None)])), NOBODY).fires is True


def test_a_rule_without_conditions_always_fires() -> None:
    verdict = evaluate(rule(), ITEM)
    assert (verdict.fires, verdict.decided_by) == (True, None)


YES, NO = ("name", "Contains", "printer"), ("name", "Contains", "toaster")


@pytest.mark.parametrize(
    ("groups", "ops", "fires", "decided"),
    [
        # within a group: `and` stops at the first false, `or` at the first true
        ([("and", [YES, NO, YES])], "and", False, (0, 1)),
        ([("and", [YES, YES])], "and", True, (0, 1)),
        ([("or", [NO, YES, NO])], "and", True, (0, 1)),
        ([("or", [NO, NO])], "and", False, (0, 1)),
        # between groups, by the rule's ops
        ([("or", [NO, YES]), ("and", [YES, NO])], "and", False, (1, 1)),
        ([("or", [NO, YES]), ("and", [YES, YES])], "and", True, (1, 1)),
        ([("and", [NO]), ("or", [NO, YES])], "or", True, (1, 1)),
        ([("and", [YES, NO]), ("or", [NO, NO])], "or", False, (1, 1)),
        ([("and", [YES]), ("and", [NO])], "or", True, (0, 0)),
    ],
)
def test_groups_join_by_the_rules_ops_and_conditions_by_their_groups(
    groups: list[tuple[str, list[tuple[str, str, str | None]]]],
    ops: str,
    fires: bool,
    decided: tuple[int, int],
) -> None:
    verdict = evaluate(rule(*groups, ops=ops), ITEM)
    assert verdict.fires is fires
    assert verdict.decided_by is not None
    assert (verdict.decided_by.group, verdict.decided_by.condition) == decided


def test_the_verdict_names_what_the_item_held() -> None:
    verdict = evaluate(rule(("and", [("priority", "Is", "Normal")])), ITEM)
    assert verdict.decided_by is not None
    assert verdict.decided_by.actual == "High"
    assert verdict.reason == (
        "The rule does not fire: conditions.0.conditions.0 (priority Is 'Normal') does not hold; "
        "the item's priority is 'High'."
    )
    people = evaluate(rule(("and", [("assignedTo", "Contains", "linus")])), ITEM)
    assert people.decided_by is not None and people.decided_by.actual == [
        "Ada Lovelace",
        "Grace Hopper",
    ]
    dates = evaluate(rule(("and", [("dueDate", "HasValue", None)])), ITEM)
    assert dates.decided_by is not None and dates.decided_by.actual == "2026-12-01T09:30:00.000Z"

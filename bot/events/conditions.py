"""A rule's conditions evaluated on one item after its change (docs/api.md, Event rules).

Pure: the item comes in as a `Subject` (its condition fields already read as their types), the
verdict goes out with the condition that decided it, so the engine and the explain endpoint give
one answer. Groups are joined by the rule's `ops`, conditions by their group's; both stop at the
first condition or group that settles the answer, which is then the one that "decided".
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from bot.events.schemas import (
    Condition,
    ConditionField,
    FieldType,
    Joiner,
    Operator,
    RuleConditions,
)
from bot.timestamps import format_timestamp, parse_timestamp

Op = Operator


@dataclass(frozen=True, slots=True)
class Person:
    """An assignee as a condition names one: by any of these, without case."""

    id: str
    source_id: str
    username: str
    email: str | None
    display_name: str

    def is_named(self, value: str) -> bool:
        wanted = value.strip().casefold()
        names = (self.id, self.source_id, self.username, self.email, self.display_name)
        return any(name is not None and name.casefold() == wanted for name in names)


@dataclass(frozen=True, slots=True)
class Subject:
    """The item after the change, as conditions read it: `values` by field (text, a category,
    an aware datetime, a list of Person, or None); `changed` holds the new value of each field
    the event changed (an empty mapping for events that change nothing)."""

    values: Mapping[ConditionField, Any]
    changed: Mapping[ConditionField, Any]


@dataclass(frozen=True, slots=True)
class Decision:
    """The condition that settled a verdict, and what the item held for it."""

    group: int
    condition: int
    field: str
    ops: str
    value: str | None
    actual: Any  # JSON-ready
    holds: bool


@dataclass(frozen=True, slots=True)
class Verdict:
    fires: bool
    decided_by: Decision | None  # None: the rule has no conditions
    reason: str


def evaluate(rule: RuleConditions, subject: Subject) -> Verdict:
    """Whether the rule's conditions hold on the subject, and which condition decided it."""
    if not rule.groups:
        return Verdict(True, None, "The rule has no conditions: every event of its trigger fires.")
    decided: Decision | None = None
    for group_at, group in enumerate(rule.groups):
        holds, decided = _group(group_at, group.ops, group.conditions, subject)
        if holds is (rule.ops is Joiner.OR):  # an `or` settled by a true group, `and` by false
            break
    assert decided is not None
    return Verdict(decided.holds, decided, _reason(decided))


def _group(
    group_at: int, ops: Joiner, conditions: Sequence[Condition], subject: Subject
) -> tuple[bool, Decision]:
    decision: Decision | None = None
    for at, condition in enumerate(conditions):
        holds = check(condition, subject)
        decision = Decision(
            group=group_at,
            condition=at,
            field=condition.field.value,
            ops=condition.ops.value,
            value=condition.value,
            actual=shown(_actual(condition, subject)),
            holds=holds,
        )
        if holds is (ops is Joiner.OR):
            break
    assert decision is not None, "a group holds at least one condition"
    return decision.holds, decision


def check(condition: Condition, subject: Subject) -> bool:
    """Whether one condition holds on the subject."""
    field, ops = condition.field, condition.ops
    if ops is Op.CHANGED:
        return field in subject.changed
    if ops is Op.CHANGED_TO:
        return field in subject.changed and _is(condition, subject.changed[field])
    actual = subject.values.get(field)
    if ops is Op.HAS_VALUE or ops is Op.HAS_NO_VALUE:
        return _has_value(actual) is (ops is Op.HAS_VALUE)
    if ops is Op.IS:
        return _is(condition, actual)
    if ops is Op.IS_NOT:
        return not _is(condition, actual)
    if ops is Op.CONTAINS or ops is Op.NOT_CONTAINS:
        return _contains(condition, actual) is (ops is Op.CONTAINS)
    if ops is Op.STARTS_WITH:
        return isinstance(actual, str) and actual.casefold().startswith(_text(condition))
    if ops is Op.GREATER_THAN or ops is Op.LESS_THAN:
        if not isinstance(actual, datetime):
            return False  # an item with no date is neither before nor after one
        limit = parse_timestamp(condition.value or "")
        return actual > limit if ops is Op.GREATER_THAN else actual < limit
    raise AssertionError(f"unknown operator {ops}")


def _is(condition: Condition, actual: Any) -> bool:
    if actual is None:
        return False
    if condition.field_type is FieldType.DATE:
        return isinstance(actual, datetime) and actual == parse_timestamp(condition.value or "")
    if isinstance(actual, list):  # people: one of them is the person named
        return any(person.is_named(condition.value or "") for person in actual)
    return str(actual).casefold() == _text(condition)


def _contains(condition: Condition, actual: Any) -> bool:
    if isinstance(actual, list):  # assignedTo: the person named is among the assignees
        return any(person.is_named(condition.value or "") for person in actual)
    return isinstance(actual, str) and _text(condition) in actual.casefold()


def _has_value(actual: Any) -> bool:
    if isinstance(actual, str):
        return bool(actual.strip())
    if isinstance(actual, list):
        return bool(actual)
    return actual is not None


def _text(condition: Condition) -> str:
    return (condition.value or "").casefold()


def _actual(condition: Condition, subject: Subject) -> Any:
    if condition.ops in (Op.CHANGED, Op.CHANGED_TO):
        return subject.changed.get(condition.field)
    return subject.values.get(condition.field)


def shown(value: Any) -> Any:
    """A subject's value as JSON shows it: dates as the API writes them, people by name."""
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, list):
        return [person.display_name for person in value]
    return value


def _reason(decided: Decision) -> str:
    where = f"conditions.{decided.group}.conditions.{decided.condition}"
    value = "" if decided.value is None else f" {decided.value!r}"
    if decided.ops in (Op.CHANGED.value, Op.CHANGED_TO.value) and decided.actual is None:
        held = "the event did not change it"
    else:
        held = f"the item's {decided.field} is {_described(decided.actual)}"
    verdict = "holds" if decided.holds else "does not hold"
    outcome = "fires" if decided.holds else "does not fire"
    return f"The rule {outcome}: {where} ({decided.field} {decided.ops}{value}) {verdict}; {held}."


def _described(actual: Any) -> str:
    if actual is None or actual == "" or actual == []:
        return "empty"
    if isinstance(actual, list):
        return ", ".join(repr(name) for name in actual)
    return repr(actual)


def people(users: Sequence[Mapping[str, Any]]) -> list[Person]:
    """Assignees in the API's User shape (`_id`, `sourceId`, …) as conditions read them."""
    return [
        Person(
            id=user["_id"],
            source_id=user["sourceId"],
            username=user["username"],
            email=user.get("email"),
            display_name=user["displayName"],
        )
        for user in users
    ]

"""The one line a thread's reply says about a burst of changes: who changed what.

"Ada moved it to In Progress; due date 1 Dec → 5 Dec. Grace assigned it to Lin". Each field
is told once, from its value before the burst to its value after, by whoever changed it last; a
field that ended where it started is not told, and a burst that changed nothing says nothing.
Pure functions of the pending lines and the names they refer to: HTML out, every value escaped.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from html import escape
from typing import Any

from bot.messaging import ThreadReply, mention_tag

SOMEONE = "Someone"
# Fields told as "<label> old → new" (the rest have their own words, or none).
LABELS = {
    "priority": "priority",
    "severity": "severity",
    "dueDate": "due date",
    "startDate": "start date",
    "effort": "effort",
    "owner": "owner",
    "phaseName": "phase",
    "bucketName": "bucket",
}
DATES = {"dueDate", "startDate"}
# Follow from what is told: a status's completion date, a project's source, ids beside names.
UNTOLD = {"completedDate", "source", "phase", "bucket"}


@dataclass(frozen=True, slots=True)
class Pending:
    """One line the next reply covers, as stored (`bot.db.tables.ThreadLine`)."""

    key: str
    what: str  # change | deleted | line
    actor_id: str | None
    changes: Sequence[Mapping[str, Any]] | None
    text: str | None
    mentions: Sequence[Mapping[str, str]]


def people_named(lines: Sequence[Pending]) -> set[str]:
    """The user ids whose names the line needs: actors and assignees."""
    ids = {line.actor_id for line in lines if line.actor_id}
    for line in lines:
        for change in line.changes or ():
            if change.get("field") == "assignedTo":
                ids.update(change.get("old") or ())
                ids.update(change.get("new") or ())
    return ids


def say(
    lines: Sequence[Pending], names: Mapping[str, str], *, this_year: int
) -> ThreadReply | None:
    """The reply for these pending lines, oldest first; None when there is nothing to tell."""
    deletions = [line for line in lines if line.what == "deleted"]
    if deletions:  # what it was changed to before no longer matters
        return ThreadReply(f"{_name(deletions[-1].actor_id, names)} deleted it", [])
    sentences = _changes(lines, names, this_year)
    changed_keys = {line.key for line in lines if line.what == "change"}
    told_keys: set[str] = set()
    for line in lines:  # a line another feature gave, unless its change is told already
        if line.what == "line" and line.text and line.key not in changed_keys | told_keys:
            told_keys.add(line.key)
            sentences.append(escape(line.text.strip().rstrip(".")))
    if not sentences:
        return None
    mentions = _mentions(lines)
    html = ". ".join(sentences)
    tags = [tag for person in mentions if (tag := mention_tag(person["name"])) not in html]
    if tags:
        html = f"{html} {' '.join(tags)}"
    return ThreadReply(html, mentions)


@dataclass
class _Net:
    old: Any
    new: Any
    actor_id: str | None


def _changes(lines: Sequence[Pending], names: Mapping[str, str], this_year: int) -> list[str]:
    net: dict[str, _Net] = {}  # in the order fields were first changed
    for line in lines:
        for change in line.changes or ():
            field = str(change["field"])
            if field in UNTOLD:
                continue
            if field in net:
                net[field].new, net[field].actor_id = change.get("new"), line.actor_id
            else:
                net[field] = _Net(change.get("old"), change.get("new"), line.actor_id)
    by_actor: dict[str | None, list[tuple[bool, str]]] = {}
    for field, value in net.items():
        clause = _clause(field, value.old, value.new, names, this_year)
        if clause is not None:
            by_actor.setdefault(value.actor_id, []).append(clause)
    sentences = []
    for actor_id, clauses in by_actor.items():
        clauses.sort(key=lambda clause: not clause[0])  # verbs first: "Ada moved it …; …"
        first_is_verb = clauses[0][0]
        text = "; ".join(words for _, words in clauses)
        sentences.append(f"{_name(actor_id, names)} {'' if first_is_verb else 'changed '}{text}")
    return sentences


def _clause(
    field: str, old: Any, new: Any, names: Mapping[str, str], this_year: int
) -> tuple[bool, str] | None:
    """(whether it starts with a verb, its words), or None for a field that did not change."""
    if field == "assignedTo":
        return _assignees(list(old or ()), list(new or ()), names)
    if old == new:
        return None
    if field == "status":
        return True, f"moved it to {escape(str(new))}"
    if field == "name":
        return True, f"renamed it “{escape(str(new))}”"
    if field == "body":
        return True, "edited the description"
    if field == "projectId":
        return True, "moved it to another project"
    label = LABELS.get(field, field)
    if field in DATES:
        return False, f"{label} {_date(old, this_year)} → {_date(new, this_year)}"
    if isinstance(old, list | dict) or isinstance(new, list | dict):
        return True, f"changed the {escape(label)}"
    return False, f"{escape(label)} {_value(old)} → {_value(new)}"


def _assignees(old: list[str], new: list[str], names: Mapping[str, str]) -> tuple[bool, str] | None:
    added = [user for user in new if user not in old]
    removed = [user for user in old if user not in new]
    words = []
    if added:
        words.append(f"assigned it to {_and(added, names)}")
    if removed:
        words.append(f"unassigned {_and(removed, names)}")
    return (True, ", ".join(words)) if words else None


def _and(user_ids: list[str], names: Mapping[str, str]) -> str:
    shown = [_name(user_id, names) for user_id in user_ids]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _name(user_id: str | None, names: Mapping[str, str]) -> str:
    return escape(names.get(user_id or "", SOMEONE))


def _value(value: Any) -> str:
    return "none" if value in (None, "") else escape(str(value))


def _date(value: Any, this_year: int) -> str:
    """`1 Dec`, or `1 Dec 2027` outside this year; dates are shown as UTC stores them."""
    if not value:
        return "none"
    day: date = datetime.fromisoformat(str(value)).date()
    shown = f"{day.day} {day:%b}"
    return shown if day.year == this_year else f"{shown} {day.year}"


def _mentions(lines: Sequence[Pending]) -> list[dict[str, str]]:
    seen: dict[str, dict[str, str]] = {}
    for line in lines:
        for person in line.mentions:
            seen.setdefault(person["id"], {"id": person["id"], "name": person["name"]})
    return list(seen.values())

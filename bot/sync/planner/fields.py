"""A Planner task (and its details) in our terms, and our changes as Graph's PATCH bodies.

`percentComplete` 0 is Not started, 100 Completed, anything between In progress (sent as 50);
`priority` is Planner's 0–10, sent as 1, 3, 5 or 9 (the four values Planner's own apps set);
assignments are keyed by Entra object id; the description lives in the task's details, whose
ETag travels in the item's version beside the task's (`task|details`)."""

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

from bot.projects.sources import PLANNER_STATES
from bot.sync.source import SourceChange, SourceFields, SourceItem, SourcePerson

TASK = "Task"
NOT_STARTED, IN_PROGRESS, COMPLETED = (state.id for state in PLANNER_STATES)
PERCENT = {NOT_STARTED: 0, IN_PROGRESS: 50, COMPLETED: 100}
PRESENT = frozenset(
    {"title", "body", "state", "priority", "assignees", "start_date", "due_date", "completed_date"}
)
ASSIGNMENT = {"@odata.type": "#microsoft.graph.plannerAssignment", "orderHint": " !"}
_SENT_PRIORITY = ((1, 1), (4, 3), (7, 5), (10, 9))  # (highest of a band, what goes out)


def version(task_etag: str, details_etag: str) -> str:
    return f"{task_etag}|{details_etag}"


def etags(item_version: str | None) -> tuple[str | None, str | None]:
    """The task's and the details' ETags of a version (None for what it lacks)."""
    if not item_version:
        return None, None
    task, _, details = item_version.partition("|")
    return task or None, details or None


def state_of(percent: int) -> str:
    if percent <= 0:
        return NOT_STARTED
    return COMPLETED if percent >= 100 else IN_PROGRESS


def source_item(task: Mapping[str, Any], details: Mapping[str, Any]) -> SourceItem:
    fields = SourceFields(
        title=str(task.get("title") or ""),
        body=str(details.get("description") or ""),
        state=state_of(int(task.get("percentComplete") or 0)),
        priority=str(task["priority"]) if task.get("priority") is not None else None,
        assignees=tuple(
            SourcePerson(id=user, display_name=user)
            for user, assignment in (task.get("assignments") or {}).items()
            if assignment is not None
        ),
        start_date=_day(task.get("startDateTime")),
        due_date=_day(task.get("dueDateTime")),
        completed_date=_day(task.get("completedDateTime")),
        present=PRESENT,
    )
    return SourceItem(
        id=str(task["id"]),
        item_type=TASK,
        fields=fields,
        version=version(str(task.get("@odata.etag") or ""), str(details.get("@odata.etag") or "")),
        changed_at=None,  # Planner keeps no change time: a change dates from when it is seen
    )


def task_patch(change: SourceChange, assigned: Mapping[str, Any]) -> dict[str, Any]:
    """The task's properties that changed (`assigned`: its assignments now, to remove the ones
    no longer wanted)."""
    fields = change.fields
    body: dict[str, Any] = {}
    if "title" in change.changed:
        body["title"] = fields.title
    if "state" in change.changed and fields.state in PERCENT:
        body["percentComplete"] = PERCENT[fields.state]
    if "priority" in change.changed and fields.priority is not None:
        sent = sent_priority(fields.priority)
        if sent is not None:
            body["priority"] = sent
    for name, prop in (("start_date", "startDateTime"), ("due_date", "dueDateTime")):
        if name in change.changed:
            body[prop] = _stamp(getattr(fields, name))
    if "assignees" in change.changed:
        wanted = {person.id for person in fields.assignees}
        removed = {user: None for user in assigned if user not in wanted}
        added = {user: dict(ASSIGNMENT) for user in wanted if user not in assigned}
        if removed or added:
            body["assignments"] = {**removed, **added}
    return body


def sent_priority(value: str) -> int | None:
    """A Planner priority as Planner's apps set it: its band's 1, 3, 5 or 9."""
    try:
        number = int(value)
    except ValueError:
        return None
    return next((sent for top, sent in _SENT_PRIORITY if 0 <= number <= top), None)


def moment(stamp: Any) -> datetime | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return None


def _day(stamp: Any) -> date | None:
    found = moment(stamp)
    return found.date() if found else None


def _stamp(day: date | None) -> str | None:
    return f"{day.isoformat()}T00:00:00Z" if day else None

"""Work item fields ↔ the port's `SourceFields` (sync.md §2), and the JSON Patch writing them."""

from collections.abc import Collection, Mapping
from datetime import UTC, date, datetime, time
from functools import cache
from typing import Any

from bot.fields.schemas import Category
from bot.sync.azure_devops.html_text import to_html, to_text
from bot.sync.source import SourceChange, SourceFields, SourceItem, SourcePerson

TITLE = "System.Title"
DESCRIPTION = "System.Description"
REPRO_STEPS = "Microsoft.VSTS.TCM.ReproSteps"
STATE = "System.State"
PRIORITY = "Microsoft.VSTS.Common.Priority"
SEVERITY = "Microsoft.VSTS.Common.Severity"
ASSIGNED_TO = "System.AssignedTo"
START_DATE = "Microsoft.VSTS.Scheduling.StartDate"
DUE_DATE = "Microsoft.VSTS.Scheduling.DueDate"
CLOSED_DATE = "Microsoft.VSTS.Common.ClosedDate"
CHANGED_DATE = "System.ChangedDate"
CHANGED_BY = "System.ChangedBy"
WORK_ITEM_TYPE = "System.WorkItemType"
COMMENT_COUNT = "System.CommentCount"

# A `SourceFields` name and the work item field behind it (the description's is per type).
REFERENCE = {
    "title": TITLE,
    "state": STATE,
    "priority": PRIORITY,
    "severity": SEVERITY,
    "assignees": ASSIGNED_TO,
    "start_date": START_DATE,
    "due_date": DUE_DATE,
    "completed_date": CLOSED_DATE,
}
READ_ONLY = frozenset({"completed_date"})  # Azure DevOps sets ClosedDate itself

# A state's category as Azure DevOps names it, as ours.
CATEGORIES = {
    "Proposed": Category.NEW,
    "InProgress": Category.ACTIVE,
    "Resolved": Category.ACTIVE,
    "Completed": Category.DONE,
    "Removed": Category.DONE,
}


def description_field(item_type: str, type_fields: Collection[str]) -> str | None:
    """Where the type keeps the description: a Bug's repro steps when it has them."""
    if item_type == "Bug" and REPRO_STEPS in type_fields:
        return REPRO_STEPS
    return DESCRIPTION if DESCRIPTION in type_fields else None


@cache
def present(item_type: str, type_fields: frozenset[str]) -> frozenset[str]:
    """The `SourceFields` names this type has (the same few types all along: kept)."""
    names = {name for name, reference in REFERENCE.items() if reference in type_fields}
    if description_field(item_type, type_fields) is not None:
        names.add("body")
    return frozenset(names | {"title"})


def parse_time(value: object) -> datetime | None:
    """An Azure DevOps date-time (`2026-12-07T05:44:35.123Z`), aware UTC; None when absent."""
    if not isinstance(value, str) or not value:
        return None
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _date(value: object) -> date | None:
    moment = parse_time(value)
    return moment.date() if moment is not None else None


def person(identity: object) -> SourcePerson | None:
    """An identity (`{id, displayName, uniqueName}`; older answers give "Name <mail>")."""
    if isinstance(identity, Mapping):
        unique = str(identity.get("uniqueName") or "")
        return SourcePerson(
            id=str(identity.get("id") or unique),
            display_name=str(identity.get("displayName") or unique),
            email=unique if "@" in unique else None,
        )
    if isinstance(identity, str) and identity:
        name, _, rest = identity.partition("<")
        mail = rest.rstrip(">").strip() or None
        return SourcePerson(id=mail or identity, display_name=name.strip() or identity, email=mail)
    return None


def source_fields(
    values: Mapping[str, Any], item_type: str, type_fields: frozenset[str]
) -> SourceFields:
    where = description_field(item_type, type_fields)
    priority = values.get(PRIORITY)
    assignee = person(values.get(ASSIGNED_TO))
    return SourceFields(
        title=str(values.get(TITLE) or ""),
        body=to_text(values.get(where)) if where else "",
        state=values.get(STATE),
        priority=str(priority) if priority is not None else None,
        severity=values.get(SEVERITY),
        assignees=(assignee,) if assignee is not None else (),
        start_date=_date(values.get(START_DATE)),
        due_date=_date(values.get(DUE_DATE)),
        completed_date=_date(values.get(CLOSED_DATE)),
        present=present(item_type, type_fields),
    )


def source_item(
    work_item: Mapping[str, Any], type_fields: frozenset[str], *, web_url: str
) -> SourceItem:
    """A work item as read (`{id, rev, fields}`); `web_url` is where a person opens it."""
    values = work_item.get("fields") or {}
    item_type = str(values.get(WORK_ITEM_TYPE) or "")
    return SourceItem(
        id=str(work_item["id"]),
        item_type=item_type,
        fields=source_fields(values, item_type, type_fields),
        version=str(work_item.get("rev", "")),
        changed_at=parse_time(values.get(CHANGED_DATE)),
        changed_by=person(values.get(CHANGED_BY)),
        url=web_url,
        comment_count=_count(values.get(COMMENT_COUNT)),
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) else None


def _written(name: str, fields: SourceFields) -> object:
    """The value a field is written with; None clears it."""
    if name == "title":
        return fields.title
    if name == "body":
        return to_html(fields.body)
    if name == "priority":
        return int(fields.priority) if fields.priority else None
    if name == "assignees":
        first = fields.assignees[0] if fields.assignees else None
        return (first.email or first.id) if first is not None else None
    if name in ("start_date", "due_date"):
        day: date | None = getattr(fields, name)
        return datetime.combine(day, time(), UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if day else None
    value: object = getattr(fields, name)
    return value


def patch(
    change: SourceChange, type_fields: frozenset[str], *, creating: bool
) -> list[dict[str, Any]]:
    """The JSON Patch operations for the change's fields that the type has: on an update the
    `test` of `/rev` first, then each changed field (`add` a value, `remove` to clear it)."""
    operations: list[dict[str, Any]] = []
    if not creating:
        if change.version is None:
            raise ValueError("an update needs the version it was made against")
        operations.append({"op": "test", "path": "/rev", "value": int(change.version)})
    names = present(change.item_type, type_fields) - READ_ONLY
    for name in sorted(change.changed & names):
        reference = (
            description_field(change.item_type, type_fields) if name == "body" else REFERENCE[name]
        )
        value = _written(name, change.fields)
        if value is None or value == "" and name != "body":
            if not creating:
                operations.append({"op": "remove", "path": f"/fields/{reference}"})
            continue
        operations.append({"op": "add", "path": f"/fields/{reference}", "value": value})
    return operations

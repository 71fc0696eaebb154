"""Jira issues in our terms, and our changes as Jira's `fields`: summary ↔ title, ADF
description ↔ body, status id ↔ state, priority by name, one assignee (account id, email when
Jira shows it), `duedate`, `resolutiondate` as the completed date, `updated` as the version."""

import zlib
from datetime import date, datetime
from typing import Any

from bot.fields.schemas import Category
from bot.sync.jira.adf import to_adf, to_text
from bot.sync.source import SourceChange, SourceFields, SourceItem, SourcePerson

# What a search or a read asks for: the fields an item is made of.
# `comment` for its `total` and its comments' `updated`: an issue's comments are read only when
# their mark moved.
READ = ["summary", "description", "issuetype", "status", "priority", "assignee", "duedate",
        "updated", "resolutiondate", "comment"]  # fmt: skip
PRESENT = frozenset({"title", "body", "state", "priority", "assignees", "due_date"})
CATEGORIES = {"new": Category.NEW, "indeterminate": Category.ACTIVE, "done": Category.DONE}


def parse_time(value: object) -> datetime | None:
    """Jira's `2026-12-07T06:00:00.000+0000`."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z")
    except ValueError:
        return None


def person(user: Any) -> SourcePerson | None:
    if not isinstance(user, dict) or not user.get("accountId"):
        return None
    return SourcePerson(
        id=str(user["accountId"]),
        display_name=str(user.get("displayName") or user["accountId"]),
        email=str(user["emailAddress"]) if user.get("emailAddress") else None,
    )


def source_item(issue: dict[str, Any], *, site: str) -> SourceItem:
    given = issue.get("fields") or {}
    assignee = person(given.get("assignee"))
    updated = given.get("updated")
    due = given.get("duedate")
    resolved = parse_time(given.get("resolutiondate"))
    return SourceItem(
        id=str(issue["key"]),
        item_type=str((given.get("issuetype") or {}).get("name") or ""),
        fields=SourceFields(
            title=str(given.get("summary") or ""),
            body=to_text(given.get("description")),
            state=str((given.get("status") or {}).get("id") or "") or None,
            priority=(given.get("priority") or {}).get("name"),
            assignees=(assignee,) if assignee else (),
            due_date=date.fromisoformat(due) if isinstance(due, str) and due else None,
            completed_date=resolved.date() if resolved else None,
            present=PRESENT,
        ),
        version=str(updated or ""),
        changed_at=parse_time(updated),
        url=f"{site}/browse/{issue['key']}",
        comment_count=_mark(given.get("comment")),
    )


def _mark(comments: object) -> int | None:
    """The issue's comments as one number that moves when one is added, edited or deleted:
    0 for none, else their count and the last `updated` of those the field lists, hashed
    (within a database integer). None when Jira gave no count."""
    total = comments.get("total") if isinstance(comments, dict) else None
    if not isinstance(total, int) or isinstance(total, bool):
        return None
    if total == 0:
        return 0
    listed = comments.get("comments") if isinstance(comments, dict) else None
    last = max(
        (str(c.get("updated") or "") for c in listed or () if isinstance(c, dict)), default=""
    )
    return zlib.crc32(f"{total}|{last}".encode()) & 0x7FFFFFFF


def edits(change: SourceChange, assignee: str | None) -> dict[str, Any]:
    """The changed fields (status aside: it moves by transitions) as an edit's `fields`;
    `assignee` is the account id the first assignee was found as (None: nobody)."""
    values = change.fields
    out: dict[str, Any] = {}
    if "title" in change.changed:
        out["summary"] = values.title
    if "body" in change.changed:
        out["description"] = to_adf(values.body)
    if "priority" in change.changed and values.priority:
        out["priority"] = {"name": values.priority}
    if "assignees" in change.changed:
        out["assignee"] = {"accountId": assignee} if assignee else None
    if "due_date" in change.changed:
        out["duedate"] = values.due_date.isoformat() if values.due_date else None
    return out

"""The stand-in's objects as Jira's REST v3 serves them (`IssueBean`, `StatusDetails`, `User`,
`Comment`, ...), with times in Jira's format (`2026-12-07T06:00:00.000+0000`)."""

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from bot.sync.standins.jira.store import (
    CATEGORIES,
    ISSUE_TYPES,
    PRIORITIES,
    Comment,
    Issue,
    Status,
    Transition,
    User,
)


def jira_time(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{moment.microsecond // 1000:03d}+0000"
    )


def user(base: str, person: User, *, time_zone: str | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "self": f"{base}/rest/api/3/user?accountId={person.account_id}",
        "accountId": person.account_id,
        "accountType": "atlassian",
        "displayName": person.display_name,
        "active": True,
    }
    if not person.hides_email:
        shown["emailAddress"] = person.email
    if time_zone:
        shown["timeZone"] = time_zone
    return shown


def category(base: str, key: str) -> dict[str, Any]:
    c = CATEGORIES[key]
    return {
        "self": f"{base}/rest/api/3/statuscategory/{c.id}",
        "id": c.id,
        "key": c.key,
        "name": c.name,
        "colorName": c.color,
    }


def status(base: str, s: Status) -> dict[str, Any]:
    return {
        "self": f"{base}/rest/api/3/status/{s.id}",
        "id": s.id,
        "name": s.name,
        "description": "",
        "iconUrl": f"{base}/images/icons/statuses/generic.png",
        "statusCategory": category(base, s.category),
    }


def issue_type(base: str, name: str) -> dict[str, Any]:
    return {
        "self": f"{base}/rest/api/3/issuetype/{ISSUE_TYPES[name]}",
        "id": ISSUE_TYPES[name],
        "name": name,
        "subtask": False,
    }


def priority(base: str, name: str) -> dict[str, Any]:
    number = PRIORITIES.index(name) + 1
    return {"self": f"{base}/rest/api/3/priority/{number}", "id": str(number), "name": name}


def transition(base: str, t: Transition, target: Status) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "to": status(base, target),
        "hasScreen": False,
        "isGlobal": not t.sources,
        "isInitial": False,
        "isAvailable": True,
        "isConditional": False,
        "isLooped": False,
    }


def issue(
    base: str,
    i: Issue,
    *,
    project: dict[str, Any],
    statuses: dict[str, Status],
    users: dict[str, User],
    wanted: Iterable[str] | None = None,
) -> dict[str, Any]:
    """The issue's bean with the `wanted` fields (None: all of them)."""
    assignee = users.get(i.assignee or "")
    every: dict[str, Any] = {
        "summary": i.summary,
        "description": i.description,
        "issuetype": issue_type(base, i.issue_type),
        "project": project,
        "status": status(base, statuses[i.status]),
        "priority": priority(base, i.priority) if i.priority else None,
        "assignee": user(base, assignee) if assignee else None,
        "duedate": i.duedate.isoformat() if i.duedate else None,
        "created": jira_time(i.created),
        "updated": jira_time(i.updated),
        "resolutiondate": jira_time(i.resolved) if i.resolved else None,
        # Jira's `comment` field: the issue's comments as a page, and how many there are.
        "comment": {
            "comments": [comment(base, i.id, c, users[c.author]) for c in i.comments],
            "maxResults": len(i.comments),
            "total": len(i.comments),
            "startAt": 0,
        },
    }
    names = set(wanted) if wanted is not None else None
    if names is not None and not names & {"*all", "*navigable"}:
        every = {k: v for k, v in every.items() if k in names}
    return {
        "id": str(i.id),
        "key": i.key,
        "self": f"{base}/rest/api/3/issue/{i.id}",
        "fields": every,
    }


def comment(base: str, issue_id: int, c: Comment, author: User) -> dict[str, Any]:
    return {
        "self": f"{base}/rest/api/3/issue/{issue_id}/comment/{c.id}",
        "id": c.id,
        "author": user(base, author),
        "updateAuthor": user(base, author),
        "body": c.body,
        "created": jira_time(c.created),
        "updated": jira_time(c.updated or c.created),
        "jsdPublic": True,
    }


def errors(messages: Iterable[str] = (), fields: dict[str, str] | None = None) -> dict[str, Any]:
    """Jira's `ErrorCollection`."""
    return {"errorMessages": list(messages), "errors": fields or {}}

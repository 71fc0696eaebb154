"""The local Planner's resources as Graph v1.0 serves them (`@odata.etag` on each entity)."""

from datetime import datetime
from typing import Any

from bot.sync.standins.planner.store import Bucket, Store, Task

V1 = "/v1.0"  # where the local Planner serves Graph
CONTEXT = "https://graph.microsoft.com/v1.0/$metadata"


def stamp(moment: datetime | None) -> str | None:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _user(user_id: str | None, *, app_id: str = "") -> dict[str, Any] | None:
    """An identitySet: the app's own writes name it as the application, others a user."""
    if user_id is None:
        return None
    who = "application" if user_id == app_id else "user"
    return {who: {"displayName": None, "id": user_id}}


def plan(store: Store) -> dict[str, Any]:
    return {
        "@odata.context": f"{CONTEXT}#planner/plans/$entity",
        "@odata.etag": 'W/"JzEtUGxhbiAgQEBAQEBAQEBAQEBAQEBAQCc="',
        "id": store.plan_id,
        "title": store.title,
        "owner": store.group_id,
        "createdDateTime": stamp(store.created_at),
        "createdBy": None,
        "container": {
            "containerId": store.group_id,
            "type": "group",
            "url": f"https://graph.microsoft.com/v1.0/groups/{store.group_id}",
        },
    }


def bucket(store: Store, found: Bucket) -> dict[str, Any]:
    return {
        "@odata.etag": 'W/"JzEtQnVja2V0QEBAQEBAQEBAQEBAQEBARCc="',
        "id": found.id,
        "name": found.name,
        "planId": store.plan_id,
        "orderHint": "8585",
    }


def task(found: Task, app_id: str = "") -> dict[str, Any]:
    return {
        "@odata.etag": found.etag,
        "id": found.id,
        "planId": found.plan_id,
        "bucketId": found.bucket_id,
        "title": found.title,
        "orderHint": "8585269235419181615",
        "assigneePriority": "",
        "percentComplete": found.percent_complete,
        "priority": found.priority,
        "startDateTime": stamp(found.start),
        "dueDateTime": stamp(found.due),
        "createdDateTime": stamp(found.created_at),
        "createdBy": _user(found.created_by, app_id=app_id),
        "completedDateTime": stamp(found.completed_at),
        "completedBy": _user(found.completed_by, app_id=app_id),
        "hasDescription": bool(found.details.description),
        "previewType": "automatic",
        "referenceCount": 0,
        "checklistItemCount": 0,
        "activeChecklistItemCount": 0,
        "conversationThreadId": None,
        "appliedCategories": {},
        "assignments": {
            user: {
                "@odata.type": "#microsoft.graph.plannerAssignment",
                "assignedDateTime": stamp(at),
                "orderHint": "8585269235419181615",
                "assignedBy": _user(by, app_id=app_id),
            }
            for user, (at, by) in found.assignments.items()
        },
    }


def details(found: Task) -> dict[str, Any]:
    return {
        "@odata.context": f"{CONTEXT}#planner/tasks('{found.id}')/details/$entity",
        "@odata.etag": found.details.etag,
        "id": found.id,
        "description": found.details.description,
        "previewType": "automatic",
        "references": {},
        "checklist": {},
    }

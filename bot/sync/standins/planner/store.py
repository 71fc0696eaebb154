"""The local Planner's state: one plan with its buckets and tasks, each task with its details.

Every write gives the written resource a new ETag (a task and its details have one each, as in
Graph: a description edit moves only the details'); ids look like Planner's (28 characters)."""

import base64
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bot.clock import Clock


def new_id() -> str:
    return secrets.token_urlsafe(21)


@dataclass(slots=True)
class Details:
    etag: str
    description: str = ""


@dataclass(slots=True)
class Task:
    id: str
    plan_id: str
    bucket_id: str
    title: str
    etag: str
    details: Details
    created_at: datetime
    created_by: str
    percent_complete: int = 0
    priority: int = 5
    start: datetime | None = None
    due: datetime | None = None
    completed_at: datetime | None = None
    completed_by: str | None = None
    # assignee's Entra object id → (assigned at, assigned by)
    assignments: dict[str, tuple[datetime, str]] = field(default_factory=dict)


@dataclass(slots=True)
class Bucket:
    id: str
    name: str


class Store:
    def __init__(self, *, plan_id: str, title: str, group_id: str, clock: Clock) -> None:
        self.plan_id, self.title, self.group_id = plan_id, title, group_id
        self.clock = clock
        self.created_at = clock.now()
        self.buckets: dict[str, Bucket] = {}
        self.tasks: dict[str, Task] = {}
        self._writes = 0

    def etag(self, kind: str) -> str:
        """A new weak ETag in Planner's form (`W/"<base64>"`), never given before."""
        self._writes += 1
        raw = f"'{self._writes}-{kind} {'@' * 14}'".encode()
        return f'W/"{base64.b64encode(raw).decode()}"'

    def add_bucket(self, name: str) -> Bucket:
        bucket = Bucket(new_id(), name)
        self.buckets[bucket.id] = bucket
        return bucket

    def create(self, values: dict[str, Any], *, by: str, task_id: str | None = None) -> Task:
        """A task from a POST body's values (already checked) or a test's seed (`task_id`: one
        chosen, as the demo does so that each run's tasks are the same)."""
        now = self.clock.now()
        task = Task(
            id=task_id or new_id(),
            plan_id=self.plan_id,
            bucket_id=str(values.get("bucketId") or next(iter(self.buckets))),
            title=str(values["title"]),
            etag=self.etag("Task"),
            details=Details(self.etag("TaskDetails")),
            created_at=now,
            created_by=by,
        )
        self.tasks[task.id] = task
        self.update(task, {k: v for k, v in values.items() if k not in ("planId", "title")}, by=by)
        return task

    def update(self, task: Task, values: dict[str, Any], *, by: str) -> None:
        now = self.clock.now()
        for name, value in values.items():
            if name == "title":
                task.title = str(value)
            elif name == "bucketId":
                task.bucket_id = str(value)
            elif name == "priority":
                task.priority = int(value)
            elif name == "percentComplete":
                task.percent_complete = int(value)
                done = task.percent_complete == 100
                task.completed_at = now if done else None
                task.completed_by = by if done else None
            elif name == "startDateTime":
                task.start = _time(value)
            elif name == "dueDateTime":
                task.due = _time(value)
            elif name == "assignments":
                for user, assignment in dict(value).items():
                    if assignment is None:
                        task.assignments.pop(user, None)
                    else:
                        task.assignments.setdefault(user, (now, by))
        task.etag = self.etag("Task")

    def describe(self, task: Task, description: str) -> None:
        task.details.description = description
        task.details.etag = self.etag("TaskDetails")


def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None

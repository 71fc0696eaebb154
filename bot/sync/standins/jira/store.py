"""The local Jira's state: one project with its issue types, a workflow (statuses in categories,
transitions between them, some of which a test may take away), users (some hiding their email),
and issues with their comments, each change stamping `updated` by the stand-in's clock."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from bot.clock import Clock


@dataclass(frozen=True, slots=True)
class Category:
    id: int
    key: str  # "new", "indeterminate", "done"
    name: str
    color: str


CATEGORIES = {
    c.key: c
    for c in (
        Category(2, "new", "To Do", "blue-gray"),
        Category(4, "indeterminate", "In Progress", "yellow"),
        Category(3, "done", "Done", "green"),
    )
}


@dataclass(frozen=True, slots=True)
class Status:
    id: str
    name: str
    category: str  # a key of CATEGORIES


@dataclass(frozen=True, slots=True)
class Transition:
    id: str
    name: str
    to: str  # the target status id
    sources: frozenset[str] = frozenset()  # the statuses it is offered from; empty: from any


@dataclass(slots=True)
class User:
    account_id: str
    display_name: str
    email: str
    hides_email: bool = False


@dataclass(slots=True)
class Comment:
    id: str
    author: str  # account id
    body: dict[str, Any]  # ADF
    created: datetime
    updated: datetime | None = None  # None: never edited


@dataclass(slots=True)
class Issue:
    id: int
    key: str
    issue_type: str
    summary: str
    status: str  # status id
    created: datetime
    updated: datetime
    description: dict[str, Any] | None = None  # ADF
    priority: str | None = "Medium"
    assignee: str | None = None  # account id
    duedate: date | None = None
    resolved: datetime | None = None
    comments: list[Comment] = field(default_factory=list)


PRIORITIES = ("Highest", "High", "Medium", "Low", "Lowest")
ISSUE_TYPES = {"Bug": "10004", "Task": "10002"}
STATUSES = (
    Status("10000", "To Do", "new"),
    Status("10001", "In Progress", "indeterminate"),
    Status("10002", "In Review", "indeterminate"),
    Status("10003", "Done", "done"),
)
TRANSITIONS = (
    Transition("11", "Start progress", "10001", frozenset({"10000", "10002"})),
    Transition("21", "Ask for review", "10002", frozenset({"10001"})),
    Transition("31", "Done", "10003"),  # global: from any status
    Transition("41", "Reopen", "10000", frozenset({"10003", "10001"})),
)

Listener = Callable[[str, Issue], None]  # (webhook event, issue) after each change


class Store:
    def __init__(self, *, project: str, clock: Clock, listener: Listener) -> None:
        self.project = project
        self.clock = clock
        self.statuses = list(STATUSES)
        self.transitions = list(TRANSITIONS)
        self.users: dict[str, User] = {}
        self.issues: dict[str, Issue] = {}
        self._listener = listener
        self._next_id = 10000
        self._next_comment = 100

    def status(self, status_id: str) -> Status:
        return next(s for s in self.statuses if s.id == status_id)

    def status_named(self, name: str) -> Status:
        found = next((s for s in self.statuses if s.name.lower() == name.lower()), None)
        if found is None:
            raise ValueError(f"the stand-in has no status {name!r}")
        return found

    def offered(self, issue: Issue) -> list[Transition]:
        """The transitions the workflow offers from the issue's status, in the workflow's order."""
        return [
            t
            for t in self.transitions
            if t.to != issue.status and (not t.sources or issue.status in t.sources)
        ]

    def create(self, issue_type: str, summary: str, *, notify: bool = True) -> Issue:
        self._next_id += 1
        now = self.clock.now()
        number = len(self.issues) + 1
        while f"{self.project}-{number}" in self.issues:
            number += 1
        issue = Issue(
            id=self._next_id,
            key=f"{self.project}-{number}",
            issue_type=issue_type,
            summary=summary,
            status=self.statuses[0].id,
            created=now,
            updated=now,
        )
        self.issues[issue.key] = issue
        if notify:
            self._listener("jira:issue_created", issue)
        return issue

    def change(self, issue: Issue, values: dict[str, Any], *, notify: bool = True) -> None:
        """Set the issue's attributes (`summary`, `status`, ...) and stamp `updated`."""
        for name, value in values.items():
            if not hasattr(issue, name) or name in ("id", "key", "comments"):
                raise ValueError(f"an issue has no field {name!r}")
            setattr(issue, name, value)
        if "status" in values:
            done = self.status(issue.status).category == "done"
            issue.resolved = self.clock.now() if done else None
        issue.updated = self._stamp(issue)
        if notify:
            self._listener("jira:issue_updated", issue)

    def _stamp(self, issue: Issue) -> datetime:
        """The time of a change: the clock's, or a millisecond after the last change when the
        clock has not moved (a frozen clock in tests), so each change moves `updated`."""
        return max(self.clock.now(), issue.updated + timedelta(milliseconds=1))

    def notify(self, event: str, issue: Issue) -> None:
        self._listener(event, issue)

    def delete(self, key: str) -> None:
        issue = self.issues.pop(key)
        self._listener("jira:issue_deleted", issue)

    def comment(self, issue: Issue, body: dict[str, Any], author: str) -> Comment:
        self._next_comment += 1
        made = Comment(str(self._next_comment), author, body, self.clock.now())
        issue.comments.append(made)
        issue.updated = self._stamp(issue)  # as Jira does: a comment is a change of the issue
        self._listener("comment_created", issue)
        return made

    def edit_comment(self, issue: Issue, comment: Comment, body: dict[str, Any]) -> None:
        comment.body, comment.updated = body, self.clock.now()
        issue.updated = self._stamp(issue)
        self._listener("comment_updated", issue)

    def delete_comment(self, issue: Issue, comment: Comment) -> None:
        issue.comments.remove(comment)
        issue.updated = self._stamp(issue)
        self._listener("comment_deleted", issue)

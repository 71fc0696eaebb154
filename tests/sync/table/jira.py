"""The test table's rig over the local Jira."""

from collections.abc import Sequence
from typing import Any

from bot.fields.schemas import Category
from bot.sync.standins.jira import JiraStandin
from tests.factories import Member
from tests.sync.table.rig import Exchange, StandinRig

STATUSES = {Category.NEW: "To Do", Category.ACTIVE: "In Progress", Category.DONE: "Done"}
CATEGORIES = {"new": Category.NEW, "indeterminate": Category.ACTIVE, "done": Category.DONE}


class JiraRig(StandinRig):
    kind = "Jira"

    def __init__(self, standin: JiraStandin) -> None:
        super().__init__(standin)
        self.standin = standin

    def link_body(self, **overrides: Any) -> dict[str, Any]:
        return {
            "displayName": "Fabrikam",
            "source": self.kind,
            "sourceId": self.standin.project,
            "hostname": self.standin.base_url,
            "email": self.standin.email,
            "token": self._token,
            "sync": {"enabled": True},
            **overrides,
        }

    def seed(
        self,
        count: int,
        *,
        states: Sequence[Category] = (),
        assignees: Sequence[Member | None] = (),
    ) -> list[str]:
        for member in assignees:
            if member is not None and not self._known(member.user.email):
                self.standin.add_user(member.user.display_name, member.user.email)

        def values(n: int) -> dict[str, Any]:
            given: dict[str, Any] = {"summary": f"Item {n}"}
            if n < len(states):
                given["status"] = STATUSES[states[n]]
            if n < len(assignees) and (member := assignees[n]) is not None:
                given["assignee"] = member.user.email
            return given

        return self.standin.seed(count, types=("Task",), values=values)

    def _known(self, email: str) -> bool:
        return any(u.email == email for u in self.standin.users.values())

    def rename(self, item_id: str, title: str) -> None:
        self.standin.change(item_id, summary=title)

    def title(self, item_id: str) -> str | None:
        issue = self.standin.issue(item_id)
        return None if issue is None else issue.summary

    def category(self, item_id: str) -> Category:
        issue = self.standin.issue(item_id)
        assert issue is not None
        return CATEGORIES[self.standin.store.status(issue.status).category]

    def delete(self, item_id: str) -> None:
        self.standin.delete(item_id)

    def writes(self) -> list[Exchange]:
        return [
            x
            for x in self.standin.exchanges
            if x.method in ("PUT", "DELETE")
            or (x.method == "POST" and (x.path.endswith("/issue") or "/transitions" in x.path))
        ]

"""The test table's rig over the local Planner (and its token endpoint, which the app reaches
through ENTRA_AUTHORITY_URL: `app_settings`)."""

from collections.abc import Sequence
from typing import Any

from bot.fields.schemas import Category
from bot.sync.planner.fields import PERCENT, state_of
from bot.sync.standins.planner import PlannerStandin
from tests.factories import Member
from tests.sync.planner_linking import planner_body
from tests.sync.table.rig import Exchange

STATES = {Category.NEW: 0, Category.ACTIVE: PERCENT["PLSTT-InProgress"], Category.DONE: 100}
CATEGORIES = {
    "PLSTT-NotStarted": Category.NEW,
    "PLSTT-InProgress": Category.ACTIVE,
    "PLSTT-Completed": Category.DONE,
}


class PlannerRig:
    kind = "Microsoft.Planner"

    def __init__(self, standin: PlannerStandin) -> None:
        self.standin = standin
        self._first_secret = standin.client_secret
        self.app_settings = {"ENTRA_AUTHORITY_URL": standin.authority_url}

    def link_body(self, **overrides: Any) -> dict[str, Any]:
        return planner_body(self.standin, **overrides)

    def seed(
        self,
        count: int,
        *,
        states: Sequence[Category] = (),
        assignees: Sequence[Member | None] = (),
    ) -> list[str]:
        made = []
        for n in range(count):
            values: dict[str, Any] = {}
            if n < len(states):
                values["percentComplete"] = STATES[states[n]]
            if n < len(assignees) and (member := assignees[n]) is not None:
                values["assignments"] = {member.user.source_id: {}}
            made.append(self.standin.create(f"Item {n}", **values))
        return made

    def rename(self, item_id: str, title: str) -> None:
        self.standin.change(item_id, title=title)

    def title(self, item_id: str) -> str | None:
        task = self.standin.task(item_id)
        return None if task is None else str(task["title"])

    def category(self, item_id: str) -> Category:
        task = self.standin.task(item_id)
        assert task is not None
        return CATEGORIES[state_of(int(task["percentComplete"]))]

    def delete(self, item_id: str) -> None:
        self.standin.delete(item_id)

    def fail_next(self, count: int = 1, *, status: int = 500) -> None:
        self.standin.fail_next(count, status=status)

    def throttle(self, budget: int, *, window_seconds: float) -> None:
        self.standin.throttle(budget, window_seconds=window_seconds)

    def revoke(self) -> None:
        self.standin.revoke()

    def new_credentials(self) -> dict[str, Any]:
        return {"clientSecret": self.standin.new_secret()}

    def secrets(self) -> list[str]:
        return [self._first_secret, self.standin.client_secret, *self.standin.tokens]

    @property
    def exchanges(self) -> Sequence[Exchange]:
        return self.standin.exchanges

    def writes(self) -> list[Exchange]:
        return [
            x
            for x in self.standin.exchanges
            if x.method in ("PATCH", "DELETE")
            or (x.method == "POST" and x.path.endswith("/planner/tasks"))
        ]

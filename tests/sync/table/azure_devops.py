"""The test table's rig over the local Azure DevOps."""

from collections.abc import Sequence
from typing import Any

from bot.fields.schemas import Category
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from tests.factories import Member
from tests.sync.table.rig import Exchange, StandinRig

STATES = {Category.NEW: "New", Category.ACTIVE: "Active", Category.DONE: "Closed"}
CATEGORIES = {"New": Category.NEW, "Active": Category.ACTIVE, "Resolved": Category.ACTIVE}


class AzureDevOpsRig(StandinRig):
    kind = "Microsoft.Vsts"

    def __init__(self, standin: AzureDevOpsStandin) -> None:
        super().__init__(standin)
        self.standin = standin

    def link_body(self, **overrides: Any) -> dict[str, Any]:
        return {
            "displayName": "Fabrikam",
            "source": self.kind,
            "sourceId": self.standin.project,
            "hostname": self.standin.org_url,
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
        def fields(n: int) -> dict[str, Any]:
            values: dict[str, Any] = {"System.Title": f"Item {n}"}
            if n < len(states):
                values["System.State"] = STATES[states[n]]
            if n < len(assignees) and (member := assignees[n]) is not None:
                values["System.AssignedTo"] = f"{member.user.display_name} <{member.user.email}>"
            return values

        return [str(i) for i in self.standin.seed(count, types=("Task",), fields=fields)]

    def rename(self, item_id: str, title: str) -> None:
        self.standin.change(int(item_id), {"System.Title": title})

    def title(self, item_id: str) -> str | None:
        item = self.standin.work_item(int(item_id))
        return None if item is None else str(item["fields"]["System.Title"])

    def category(self, item_id: str) -> Category:
        item = self.standin.work_item(int(item_id))
        assert item is not None
        return CATEGORIES.get(item["fields"]["System.State"], Category.DONE)

    def delete(self, item_id: str) -> None:
        self.standin.delete(int(item_id))

    def writes(self) -> list[Exchange]:
        return [
            x
            for x in self.standin.exchanges
            if x.method in ("PATCH", "DELETE") or (x.method == "POST" and "/workitems/$" in x.path)
        ]

"""The local Azure DevOps in a process of its own for the sync benchmarks, with the control API
of `standin_control` beside it on a second port (`python -m bench.ado_standin PORT
CONTROL_PORT`)."""

import asyncio
import sys
from typing import Any

from bench.standin_control import Noting, serve
from bot.sync.standins.azure_devops import AzureDevOpsStandin
from bot.sync.standins.azure_devops.store import WorkItem

TOKEN = "bench-pat"
# What an HTML description looks like when a person wrote it in Azure DevOps' editor.
DESCRIPTION = (
    "<div><p>Steps to reproduce number {n}:</p><ol><li>Open the <b>printer</b> page</li>"
    '<li>Click <i>Print</i> twice</li></ol><p>See <a href="https://example.com/{n}">the '
    "log</a>; it says <code>E{n}</code>.</p><ul><li>Windows 11</li><li>Edge</li></ul></div>"
)


class BenchStandin(Noting, AzureDevOpsStandin):
    def __init__(self) -> None:
        AzureDevOpsStandin.__init__(self, token=TOKEN)
        Noting.__init__(self)

    def _changed(self, event_type: str, item: WorkItem, before: dict[str, Any]) -> None:
        self.noted(str(item.id), item.rev)
        super()._changed(event_type, item, before)

    def ready(self) -> dict[str, str]:
        return {"hostname": self.org_url, "project": self.project, "root": self.base_url}

    def seed_items(self, count: int, *, rich: bool, area: str | None) -> list[str]:
        def fields(n: int) -> dict[str, Any]:
            values = {"System.AreaPath": f"{self.project}\\{area}"} if area else {}
            if rich:
                # Seeds take Bug and Task in turn; a Bug keeps its description in its repro steps.
                where = "Microsoft.VSTS.TCM.ReproSteps" if n % 2 == 0 else "System.Description"
                values[where] = DESCRIPTION.format(n=n)
            return values

        return [str(made) for made in self.seed(count, fields=fields)]

    def change_item(self, item_id: str, fields: dict[str, Any]) -> int:
        return self.change(int(item_id), fields)

    def revisions(self) -> dict[str, int]:
        return {str(i): item.rev for i, item in self.store.items.items()}

    def hooks(self, asked: dict[str, Any]) -> None:
        """The token may (or may not) subscribe to service hooks; off removes them all. On, the
        link subscribes by itself: a `url` given is not needed."""
        self.add_token(TOKEN, hooks=bool(asked["on"]))
        if not asked["on"]:
            self.subscriptions.clear()


if __name__ == "__main__":
    asyncio.run(serve(BenchStandin(), int(sys.argv[1]), int(sys.argv[2])))

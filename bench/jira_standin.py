"""The local Jira in a process of its own for the sync benchmarks, with the control API of
`standin_control` beside it on a second port (`python -m bench.jira_standin PORT
CONTROL_PORT`). Jira numbers no revisions: this one counts each issue's changes from 1."""

import asyncio
import sys
from typing import Any

from bench.standin_control import Noting, serve
from bot.sync.jira.adf import to_adf
from bot.sync.standins.jira import OWNER, JiraStandin
from bot.sync.standins.jira.store import Issue

EMAIL, TOKEN = OWNER.email, "bench-api-token"
# What a person writes in Jira's editor (stored as Atlassian Document Format).
DESCRIPTION = (
    "Steps to reproduce number {n}:\n\n1. Open the **printer** page\n2. Click *Print* twice\n\n"
    "See [the log](https://example.com/{n}); it says `E{n}`.\n\n- Windows 11\n- Edge"
)


class BenchStandin(Noting, JiraStandin):
    def __init__(self) -> None:
        JiraStandin.__init__(self, token=TOKEN)
        Noting.__init__(self)
        self.revs: dict[str, int] = {}

    def _changed(self, event: str, issue: Issue) -> None:
        self.revs[issue.key] = self.revs.get(issue.key, 1) + 1
        self.noted(issue.key, self.revs[issue.key])
        super()._changed(event, issue)

    def ready(self) -> dict[str, str]:
        return {"hostname": self.base_url, "project": self.project, "root": self.base_url}

    def seed_items(self, count: int, *, rich: bool, area: str | None) -> list[str]:
        """Jira has no area: a project's scope is its JQL (`area` is not needed here, see
        `sync_jira.SOURCE`)."""

        def values(n: int) -> dict[str, Any]:
            return {"description": to_adf(DESCRIPTION.format(n=n))} if rich else {}

        return self.seed(count, values=values)

    def change_item(self, item_id: str, fields: dict[str, Any]) -> int:
        self.change(item_id, **fields)
        return self.revs[item_id]

    def revisions(self) -> dict[str, int]:
        return {key: self.revs.get(key, 1) for key in self.store.issues}

    def hooks(self, asked: dict[str, Any]) -> None:
        """On: a webhook registered as a Jira administrator does (`url`, `secret`); off: none."""
        self.webhooks.clear()
        if asked["on"]:
            self.add_webhook(asked["url"], asked["secret"])


if __name__ == "__main__":
    asyncio.run(serve(BenchStandin(), int(sys.argv[1]), int(sys.argv[2])))

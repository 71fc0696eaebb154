"""The local Planner in a process of its own for the sync benchmarks, with the control API of
`standin_control` beside it on a second port (`python -m bench.planner_standin PORT
CONTROL_PORT`). Planner numbers no revisions: this one counts each task's writes from 1 and
makes the task's ETag of its id and that count (`etag`), so that a bare client knows the ETag
its `If-Match` names as the connector knows its own. Two buckets stand for the areas: "App"
and "Bare" (`BUCKETS`)."""

import asyncio
import base64
import sys
from datetime import timedelta
from typing import Any

from bench.standin_control import Noting, serve
from bot.sync.standins.planner.server import PlannerStandin, _Token
from bot.sync.standins.planner.store import Bucket, Store, Task

TENANT, CLIENT = "contoso.onmicrosoft.com", "11111111-2222-3333-4444-555555555555"
SECRET = "bench-client-secret"
# The bare client's token, given before it starts, as the app's is cached before a push.
BARE_TOKEN = "bench-bare-client-token"
BUCKETS = {name: f"bench-bucket-{name}".ljust(28, "0") for name in ("App", "Bare")}
# What a person writes in Planner's notes (plain text: Planner has no rich text).
DESCRIPTION = "Steps to reproduce number {n}: open the printer page, click Print twice. E{n}."


def etag(task_id: str, rev: int) -> str:
    """The task's ETag at its revision `rev`, in Planner's form (`W/"<base64>"`)."""
    return f'W/"{base64.b64encode(f"{task_id} {rev}".encode()).decode()}"'


class CountedStore(Store):
    """Each write to a task counts a revision and gives it the ETag of that revision."""

    def __init__(self, noted: Any, **where: Any) -> None:
        super().__init__(**where)
        self.noted = noted
        self.revs: dict[str, int] = {}

    def update(self, task: Task, values: dict[str, Any], *, by: str) -> None:
        super().update(task, values, by=by)
        rev = self.revs[task.id] = self.revs.get(task.id, 0) + 1
        task.etag = etag(task.id, rev)
        self.noted(task.id, rev)


class BenchStandin(Noting, PlannerStandin):
    def __init__(self) -> None:
        PlannerStandin.__init__(self, tenant_id=TENANT, client_id=CLIENT, client_secret=SECRET)
        Noting.__init__(self)
        plan = self.store
        self.store = CountedStore(
            self.noted,
            plan_id=plan.plan_id,
            title=plan.title,
            group_id=plan.group_id,
            clock=self.clock,
        )
        self.store.buckets = {id_: Bucket(id_, name) for name, id_ in BUCKETS.items()}
        self._tokens[BARE_TOKEN] = _Token(self.clock.now() + timedelta(days=1))

    def ready(self) -> dict[str, str]:
        return {"hostname": self.graph_url, "project": self.plan_id, "root": self.base_url}

    def seed_items(self, count: int, *, rich: bool, area: str | None) -> list[str]:
        """Each task with a description (`rich` is not needed: Planner's notes are plain text),
        in the bucket named `area` (else the first)."""
        bucket = {"bucketId": BUCKETS[area]} if area else {}
        return [
            self.create(f"Task {n}", description=DESCRIPTION.format(n=n), **bucket)
            for n in range(count)
        ]

    def change_item(self, item_id: str, fields: dict[str, Any]) -> int:
        self.change(item_id, **fields)
        return self.store.revs[item_id]

    def revisions(self) -> dict[str, int]:
        return dict(self.store.revs)

    def hooks(self, asked: dict[str, Any]) -> None:
        """Graph v1.0 has no change notifications for Planner: polling only."""
        if asked["on"]:
            raise ValueError("Planner has no hooks")


if __name__ == "__main__":
    asyncio.run(serve(BenchStandin(), int(sys.argv[1]), int(sys.argv[2])))

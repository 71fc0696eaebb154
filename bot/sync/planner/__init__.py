"""The Planner connector: `PlannerSource` implements `bot.sync.source.Source` over Microsoft Graph
v1.0 (plans, buckets, tasks and their details, client-credentials tokens); `open_source` makes
one for a linked plan."""

from bot.sync.planner.source import PlannerSource, open_source

__all__ = ["PlannerSource", "open_source"]

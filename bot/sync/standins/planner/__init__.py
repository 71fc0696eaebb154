"""A local Microsoft Planner (Graph v1.0) with its token endpoint: see `server.PlannerStandin`."""

from bot.sync.standins.planner.server import SOMEONE_ELSE, PlannerStandin

__all__ = ["SOMEONE_ELSE", "PlannerStandin"]

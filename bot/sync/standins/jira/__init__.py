"""A local Jira Cloud for tests and the demo: see `server.JiraStandin`."""

from bot.sync.standins.jira.hooks import HookCall, signature
from bot.sync.standins.jira.server import HIDDEN, OWNER, SOMEONE_ELSE, JiraStandin

__all__ = ["HIDDEN", "OWNER", "SOMEONE_ELSE", "HookCall", "JiraStandin", "signature"]

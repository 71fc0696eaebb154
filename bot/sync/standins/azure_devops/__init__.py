"""A local Azure DevOps for tests and the demo: see `server.AzureDevOpsStandin`."""

from bot.sync.standins.azure_devops.hooks import HookCall
from bot.sync.standins.azure_devops.server import (
    OWNER,
    SOMEONE_ELSE,
    AzureDevOpsStandin,
)
from bot.sync.standins.faults import Hang, Violation
from bot.sync.standins.wire import Exchange

__all__ = [
    "OWNER",
    "SOMEONE_ELSE",
    "AzureDevOpsStandin",
    "Exchange",
    "Hang",
    "HookCall",
    "Violation",
]

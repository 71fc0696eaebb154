"""The Azure DevOps connector: `AzureDevOpsSource` implements `bot.sync.source.Source` over the
REST API 7.1 (work items, WIQL, work item types, comments, service hooks)."""

from bot.sync.azure_devops.source import AzureDevOpsSource

__all__ = ["AzureDevOpsSource"]

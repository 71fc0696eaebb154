"""The Azure DevOps connector: `AzureDevOpsSource` implements `bot.sync.source.Source` over the
REST API 7.1 (work items, WIQL, work item types, comments, service hooks); `open_source`
makes one for a linked project."""

from bot.sync.azure_devops.source import AzureDevOpsSource, open_source

__all__ = ["AzureDevOpsSource", "open_source"]

"""The Jira Cloud connector: `source.JiraSource` over REST v3 (`client`), issues read and
written in our terms (`fields`), rich text as ADF (`adf`)."""

from bot.sync.jira.source import JiraSource, open_source

__all__ = ["JiraSource", "open_source"]

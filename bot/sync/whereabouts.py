"""Where a synced item lives (its page at the source) and its sync problem, from the item's
details, as its card shows them."""

from urllib.parse import quote

from bot.items.schemas import TaskDetails
from bot.projects.sources import SourceKind
from bot.sync_records.schemas import ItemSyncStatus, SyncedAt


def source_item_url(source: str, hostname: str, project: str, item_id: str) -> str | None:
    """The item's page at its source: Azure DevOps `{org url}/{project}/_workitems/edit/{id}`,
    Jira `{site}/browse/{key}`; None for a source without one (Planner)."""
    base = hostname.strip().rstrip("/")
    if "://" not in base:
        base = f"https://{base}"  # a bare host: https implied, as the connectors read it
    if source == SourceKind.AZURE_DEVOPS:
        return f"{base}/{quote(project, safe='')}/_workitems/edit/{quote(item_id, safe='')}"
    if source == SourceKind.JIRA:
        return f"{base}/browse/{quote(item_id, safe='')}"
    return None


def synced_at(item: TaskDetails, *, source_state: str | None = None) -> SyncedAt | None:
    """None for an item that is not synced (native, or never sent nor read from a source)."""
    if item.source == SourceKind.NATIVE:
        return None
    # Until it is made at the source, a synced item's `sourceId` is its own `_id`.
    there = item.source_id if item.source_id != item.id else None
    status = ItemSyncStatus(item.sync.status) if item.sync.status else None
    if there is None and status is None:
        return None
    project = item.project_id
    url = None
    if there is not None:
        url = source_item_url(item.source, project.hostname, project.source_id, there)
    return SyncedAt(
        source=item.source,
        source_item_id=there,
        url=url,
        status=status,
        message=item.sync.message if status == ItemSyncStatus.SOURCE_ERROR else None,
        source_state=source_state,
    )

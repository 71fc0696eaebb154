"""The items table's row for a generated item: every column, as the app would store it."""

from datetime import datetime
from typing import Any

from bot.db.text import fold_text
from bot.ids import new_id


def item_row(
    *,
    channel_id: str,
    kind: str,
    internal_id: int,
    name: str,
    status: str,
    status_id: str,
    priority: str,
    severity: str | None,
    project_id: str,
    due_date: datetime | None,
    created: datetime,
) -> dict[str, Any]:
    """A native item created at `created`, never edited since, with no assignee columns."""
    item_id = new_id()
    return {
        "id": item_id,
        "channel_id": channel_id,
        "kind": kind,
        "internal_id": internal_id,
        "name": name,
        "name_key": fold_text(name),
        "body": "Generated for the benchmarks.",
        "owner": None,
        "status": status,
        "status_id": status_id,
        "priority": priority,
        "severity": severity,
        "project_id": project_id,
        "source": "Svc.Native",
        "source_id": item_id,
        "start_date": None,
        "due_date": due_date,
        "completed_date": None,
        "effort": None,
        "phase": None,
        "phase_name": None,
        "bucket": [],
        "bucket_name": None,
        "entity_id": None,
        "sync_status": None,
        "sync_at": created,
        "created_by": None,
        "updated_by": None,
        "created_at": created,
        "updated_at": created,
    }

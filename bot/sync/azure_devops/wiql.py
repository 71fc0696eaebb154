"""The one WIQL query a pull sends: the project's items of some types, changed after a time,
under an area path, oldest change first."""

from collections.abc import Sequence
from datetime import UTC, datetime


def quoted(value: str) -> str:
    """A WIQL string literal: single quotes, a quote inside doubled."""
    return "'" + value.replace("'", "''") + "'"


def when(moment: datetime) -> str:
    """A time as WIQL compares it with `timePrecision=true`: ISO 8601 UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def changed_query(
    project: str,
    item_types: Sequence[str],
    *,
    changed_after: datetime | None = None,
    area: str | None = None,
) -> str:
    """`SELECT [System.Id] … ORDER BY [System.ChangedDate] ASC, [System.Id] ASC`."""
    if not item_types:
        raise ValueError("a query needs at least one work item type")
    types = ", ".join(quoted(name) for name in item_types)
    where = [
        f"[System.TeamProject] = {quoted(project)}",
        f"[System.WorkItemType] IN ({types})",
    ]
    if changed_after is not None:
        where.append(f"[System.ChangedDate] > {quoted(when(changed_after))}")
    if area:
        where.append(f"[System.AreaPath] UNDER {quoted(area)}")
    return (
        "SELECT [System.Id] FROM WorkItems WHERE "
        + " AND ".join(where)
        + " ORDER BY [System.ChangedDate] ASC, [System.Id] ASC"
    )

"""Where a synced item lives, on its card: "Synced with Azure DevOps 42" linking to it there,
and its sync problem when it has one."""

from bot.sync_records.schemas import ItemSyncStatus, SyncedAt, source_name
from cards.layout import ATTENTION, Element, rich_text, shorten, text_run

NAME_MAX = 80
PROBLEM_MAX = 300


def synced_lines(synced: SyncedAt) -> list[Element]:
    """ "Azure DevOps 42", a link to it, and its sync problem when it has one."""
    name = source_name(synced.source)
    lines: list[Element] = []
    if synced.source_item_id is not None:
        place = text_run(shorten(f"{name} {synced.source_item_id}", NAME_MAX), weight="bolder")
        if synced.url:
            place["selectAction"] = {"type": "Action.OpenUrl", "url": synced.url}
            place["color"] = "accent"
        lines.append(rich_text(text_run("Synced with ", isSubtle=True), place, spacing="small"))
    problem = _problem(synced, name)
    if problem is not None:
        said, colour = problem
        lines.append(rich_text(text_run(shorten(said, PROBLEM_MAX), color=colour), spacing="small"))
    return lines


def _problem(synced: SyncedAt, name: str) -> tuple[str, str] | None:
    match synced.status:
        case ItemSyncStatus.PENDING:
            return f"Waiting to be sent to {name}", "default"
        case ItemSyncStatus.MAPPING_NOTFOUND:
            state = f"state {synced.source_state}" if synced.source_state else f"its {name} state"
            return f"Not synced: no mapping for {state}", ATTENTION
        case ItemSyncStatus.TRANSITION_NOTFOUND:
            return f"Not synced: {name}'s workflow offers no way to this status", ATTENTION
        case ItemSyncStatus.SOURCE_ERROR:
            return f"Not synced: {name} refused the change: {synced.message or ''}", ATTENTION
    return None

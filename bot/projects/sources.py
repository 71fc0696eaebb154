"""The four source kinds and the value catalogues each external one brings (docs/api.md)."""

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.fields.schemas import Category


class SourceKind(StrEnum):
    NATIVE = "Svc.Native"
    PLANNER = "Microsoft.Planner"
    AZURE_DEVOPS = "Microsoft.Vsts"
    JIRA = "Jira"

    @property
    def needs_mapping(self) -> bool:
        """The mapping rule (docs/api.md): an external source's items use only mapped statuses."""
        return self is not SourceKind.NATIVE

    @property
    def brings_states(self) -> bool:
        """Azure DevOps and Jira projects are configured with their own state catalogue."""
        return self in (SourceKind.AZURE_DEVOPS, SourceKind.JIRA)

    @property
    def maps_severity(self) -> bool:
        """Azure DevOps is the one source with severities, so its severities need mappings too."""
        return self is SourceKind.AZURE_DEVOPS


@dataclass(frozen=True)
class SourceValue:
    """A state (or severity) of a source: what a mapping's `sourceId` and `sourceName` name."""

    id: str
    name: str
    category: Category | None = None


# Planner buckets progress in three fixed steps, with these ids and percentages.
PLANNER_STATES = (
    SourceValue("PLSTT-NotStarted", "Not started", Category.NEW),
    SourceValue("PLSTT-InProgress", "In progress", Category.ACTIVE),
    SourceValue("PLSTT-Completed", "Completed", Category.DONE),
)
PLANNER_PERCENT = {Category.NEW: 0, Category.ACTIVE: 50, Category.DONE: 100}
# Azure DevOps' standard Microsoft.VSTS.Common.Severity values; mapped by the name after " - ".
AZURE_DEVOPS_SEVERITIES = (
    SourceValue("1 - Critical", "1 - Critical"),
    SourceValue("2 - High", "2 - High"),
    SourceValue("3 - Medium", "3 - Medium"),
    SourceValue("4 - Low", "4 - Low"),
)


def states_of(source: SourceKind, stored_states: list[dict[str, Any]]) -> tuple[SourceValue, ...]:
    """An external project's state catalogue: Planner's fixed one, or the one it was given."""
    if source is SourceKind.PLANNER:
        return PLANNER_STATES
    return tuple(
        SourceValue(state["id"], state["name"], Category(state["category"]))
        for state in stored_states
    )


def severity_name(source_value: SourceValue) -> str:
    """`3 - Medium` → `Medium`: the channel severity an Azure DevOps severity maps to by default."""
    return source_value.name.partition(" - ")[2] or source_value.name

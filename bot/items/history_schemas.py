"""An item's history of changes in and out (docs/api.md, History)."""

from typing import Any

from pydantic import Field

from bot.schemas import ApiModel, CollectionPage, Timestamp


class HistoryActor(ApiModel):
    """The person who made a change."""

    id: str = Field(alias="_id")
    display_name: str = Field(alias="displayName")


class FieldChange(ApiModel):
    """One field's value before and after (null before, for a created item)."""

    field: str = Field(description="The field's API name, as in the item's details")
    old: Any = None
    new: Any = None


class HistoryEntry(ApiModel):
    """One change of the item: when, by whom, what kind, and which fields moved."""

    id: str = Field(alias="_id", description="The change's id")
    at: Timestamp
    kind: str = Field(description="created, updated or deleted")
    actor: HistoryActor | None = Field(
        description="The person who made the change; null when no person did (see source)"
    )
    source: str | None = Field(
        description="When no person made the change: the item's source, which did (Svc.Native, "
        "Jira, Microsoft.Planner, Microsoft.Vsts); null otherwise"
    )
    changes: list[FieldChange] = Field(
        description="Created: every field given a value; updated: the fields changed; deleted: none"
    )


class HistoryPage(CollectionPage):
    value: list[HistoryEntry]

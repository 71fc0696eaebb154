"""Field mappings: bodies in and out (docs/api.md, Field mappings)."""

from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints

from bot.fields.schemas import TypeLabel
from bot.projects.sources import SourceKind
from bot.schemas import ApiModel, CollectionPage, RefusesNull, Timestamp

SourceText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]


class MappedField(StrEnum):
    STATUS = "status"
    PRIORITY = "priority"
    SEVERITY = "severity"


class MappingIn(ApiModel):
    """`fieldName` and `projectHostname` are derived from `fieldId` and `projectId`."""

    field_id: str = Field(alias="fieldId", description="The channel's status, priority or severity")
    project_id: str = Field(alias="projectId", description="An external project of the channel")
    source_id: SourceText = Field(alias="sourceId", description="The source's value (state id)")
    source_name: SourceText | None = Field(
        None, alias="sourceName", description="Default: the name in the source's catalogue"
    )
    type: MappedField
    entity_type: TypeLabel = Field(alias="entityType")
    enable: bool = True
    source: SourceKind | None = Field(None, description="Must match the project's, when sent")


class MappingPatch(ApiModel):
    field_id: Annotated[str | None, RefusesNull] = Field(None, alias="fieldId")
    source_id: Annotated[SourceText | None, RefusesNull] = Field(None, alias="sourceId")
    source_name: Annotated[SourceText | None, RefusesNull] = Field(None, alias="sourceName")
    enable: Annotated[bool | None, RefusesNull] = None
    # Fixed once made; accepted when unchanged.
    project_id: str | None = Field(None, alias="projectId")
    type: MappedField | None = None
    entity_type: TypeLabel | None = Field(None, alias="entityType")
    source: SourceKind | None = None


class MappingOut(ApiModel):
    odata_context: str = Field(alias="@odata.context")
    odata_edit_link: str = Field(alias="@odata.editLink")
    odata_id: str = Field(alias="@odata.id")
    id: str = Field(alias="_id")
    field_id: str = Field(alias="fieldId")
    field_name: str = Field(alias="fieldName")
    project_id: str = Field(alias="projectId")
    project_hostname: str = Field(alias="projectHostname")
    source: SourceKind
    source_id: str = Field(alias="sourceId")
    source_name: str = Field(alias="sourceName")
    enable: bool
    type: MappedField
    entity_type: TypeLabel = Field(alias="entityType")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class MappingPage(CollectionPage):
    """An OData collection of the channel's field mappings."""

    value: list[MappingOut]

"""Projects: the configured-project bodies in and out, and the project embedded in items."""

from typing import Annotated

from pydantic import Field, RootModel, SecretStr, StringConstraints, field_validator

from bot.fields.schemas import Category, Color, Name
from bot.projects.sources import SourceKind
from bot.schemas import ApiModel, CollectionPage, RefusesNull, Timestamp
from bot.sync_records.schemas import ProjectSyncOut, SyncSettings

NATIVE_SOURCE = SourceKind.NATIVE.value
MAX_STATES = 100

SourceText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
# A host name, optionally with a path (`dev.azure.com/contoso`), or a URL with scheme, host,
# port and path (`https://dev.azure.com/contoso`); no spaces.
Hostname = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True,
        max_length=255,
        pattern=r"^(?:https?://)?[^\s/:]+(?::\d{1,5})?(?:/\S*)?$",
    ),
]
Secret = Annotated[SecretStr, Field(min_length=1, max_length=4096)]


class SourceState(ApiModel):
    """One state of an Azure DevOps or Jira project's workflow."""

    id: SourceText
    name: SourceText
    category: Category


def _distinct_ids(states: list[SourceState] | None) -> list[SourceState] | None:
    if states is not None:
        ids = [state.id for state in states]
        if len(set(ids)) != len(ids):
            raise ValueError("each state id may appear once")
    return states


class ProjectIn(ApiModel):
    display_name: Name = Field(alias="displayName")
    source: SourceKind
    source_id: SourceText = Field(alias="sourceId")
    project_name: Name | None = Field(None, alias="projectName", description="Default: displayName")
    hostname: Hostname | None = Field(None, description="Required for Azure DevOps and Jira")
    enable: bool = True
    enable_bug: bool = Field(True, alias="enableBug")
    color: Color | None = None
    states: list[SourceState] | None = Field(
        None, max_length=MAX_STATES, description="Azure DevOps and Jira: required, at least one"
    )
    token: Secret | None = Field(None, description="Write-only; stored encrypted")
    password: Secret | None = Field(None, description="Write-only; stored encrypted")
    email: Secret | None = Field(None, description="Jira: the token's account; write-only")
    tenant_id: Secret | None = Field(None, alias="tenantId", description="Planner; write-only")
    client_id: Secret | None = Field(None, alias="clientId", description="Planner; write-only")
    client_secret: Secret | None = Field(
        None, alias="clientSecret", description="Planner; write-only"
    )
    sync: SyncSettings | None = None

    _distinct_states = field_validator("states")(_distinct_ids)


class ProjectPatch(ApiModel):
    """Only the fields sent change; `source` and `sourceId` are accepted only when unchanged."""

    display_name: Annotated[Name | None, RefusesNull] = Field(None, alias="displayName")
    project_name: Annotated[Name | None, RefusesNull] = Field(None, alias="projectName")
    hostname: Annotated[Hostname | None, RefusesNull] = None
    enable: Annotated[bool | None, RefusesNull] = None
    enable_bug: Annotated[bool | None, RefusesNull] = Field(None, alias="enableBug")
    color: Annotated[Color | None, RefusesNull] = None
    states: Annotated[list[SourceState] | None, RefusesNull] = Field(None, max_length=MAX_STATES)
    token: Secret | None = Field(None, description="Write-only; null removes it")
    password: Secret | None = Field(None, description="Write-only; null removes it")
    email: Secret | None = Field(None, description="Write-only; null removes it")
    tenant_id: Secret | None = Field(None, alias="tenantId", description="Write-only")
    client_id: Secret | None = Field(None, alias="clientId", description="Write-only")
    client_secret: Secret | None = Field(None, alias="clientSecret", description="Write-only")
    sync: Annotated[SyncSettings | None, RefusesNull] = Field(
        None, description="Merged: only the fields sent change"
    )
    source: SourceKind | None = None
    source_id: SourceText | None = Field(None, alias="sourceId")

    _distinct_states = field_validator("states")(_distinct_ids)


class ProjectOut(ApiModel):
    id: str = Field(alias="_id")
    display_name: str = Field(alias="displayName")
    project_name: str = Field(alias="projectName")
    source: SourceKind
    source_id: str = Field(alias="sourceId")
    hostname: str
    enable: bool
    enable_bug: bool = Field(alias="enableBug")
    color: str
    states: list[SourceState]
    has_credentials: bool = Field(
        alias="hasCredentials", description="Whether a token or password is stored (never shown)"
    )
    credentials: list[str] = Field(description="The names of the credentials set (never values)")
    sync: ProjectSyncOut
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class ProjectSaved(ProjectOut):
    """A project as saved; `hookSecret` only in the answer that first enabled its sync."""

    hook_secret: str | None = Field(None, alias="hookSecret", description="Shown once")


class ProjectPage(CollectionPage):
    """An OData collection of the channel's projects."""

    value: list[ProjectOut]


class SourceStatus(ApiModel):
    """A state of an Azure DevOps or Jira project, or a status of the native project."""

    id: str
    name: str
    category: str


class PlannerStatus(ApiModel):
    """Planner's shape (the `categoty` spelling is the API's own: docs/api.md, Projects)."""

    id: str
    name: str
    percent_complete: int = Field(alias="percentComplete")
    categoty: str = ""


class ProjectRef(ApiModel):
    """The project object inside an item's details (its `projectId`)."""

    enable_bug: bool = Field(alias="enableBug")
    id: str = Field(alias="_id")
    display_name: str = Field(alias="displayName")
    hostname: str
    project_name: str = Field(alias="projectName")
    source_id: str = Field(alias="sourceId")


class SourceStatuses(RootModel[list[PlannerStatus | SourceStatus]]):
    """A bare array (docs/api.md, Projects): Planner's fixed states, or `id, name, category` rows"""

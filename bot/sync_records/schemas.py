"""Sync bodies in and out: a project's `sync` object, its status and log, an item's `sync`;
and what the chat shows of them (a project's sync, where a synced item lives)."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints, field_validator

from bot.schemas import ApiModel, RefusesNull, Timestamp

MIN_INTERVAL_SECONDS = 15
DEFAULT_INTERVAL_SECONDS = 60
DEFAULT_ITEM_TYPES = {"Bug": "Bug", "Task": "Task"}
LOG_LINES = 100

TypeName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=128)]


class Direction(StrEnum):
    BOTH = "both"  # the source is read, and changes here are sent
    IN = "in"  # the source is read; edits made here stay here
    OUT = "out"  # no import; items created or changed here are sent


class SyncState(StrEnum):
    OFF = "off"
    IMPORTING = "importing"
    RUNNING = "running"
    PAUSED = "paused"  # the source refused the credentials: nothing is sent until new ones
    FAILING = "failing"  # the source fails for now; retried with backoff


class ItemSyncStatus(StrEnum):
    """An item's sync problem, the first that holds in this order wins (docs/sync.md)."""

    MAPPING_NOTFOUND = "Svc_MAPPING_NOTFOUND"
    TRANSITION_NOTFOUND = "Svc_TRANSITION_NOTFOUND"
    SOURCE_ERROR = "Svc_SOURCE_ERROR"
    PENDING = "Svc_PENDING"


def _item_types(value: dict[str, str] | None) -> dict[str, str] | None:
    if value is not None:
        unknown = set(value) - set(DEFAULT_ITEM_TYPES)
        if unknown:
            raise ValueError(f"only Bug and Task are synced, not {', '.join(sorted(unknown))}")
    return value


class SyncSettings(ApiModel):
    """The writable part of a project's `sync`; on PATCH, the fields sent are merged."""

    enabled: Annotated[bool | None, RefusesNull] = None
    direction: Annotated[Direction | None, RefusesNull] = None
    interval_seconds: Annotated[int | None, RefusesNull] = Field(
        None, alias="intervalSeconds", ge=MIN_INTERVAL_SECONDS, le=86_400
    )
    item_types: Annotated[dict[str, TypeName] | None, RefusesNull] = Field(
        None, alias="itemTypes", description='The source\'s type per kind: {"Bug": …, "Task": …}'
    )
    query: Annotated[str | None, StringConstraints(max_length=2000)] = Field(
        None, description="Narrows the import, in the source's terms; null clears it"
    )

    _known_types = field_validator("item_types")(_item_types)


class SyncError(ApiModel):
    code: str
    message: str
    at: Timestamp


class ProjectSyncOut(ApiModel):
    """A project's `sync`: the settings, and where it stands (read-only)."""

    enabled: bool
    direction: Direction
    interval_seconds: int = Field(alias="intervalSeconds")
    item_types: dict[str, str] = Field(alias="itemTypes")
    query: str | None
    state: SyncState
    last_pull_at: Timestamp | None = Field(alias="lastPullAt")
    last_push_at: Timestamp | None = Field(alias="lastPushAt")
    pending: int
    last_error: SyncError | None = Field(alias="lastError")

    @classmethod
    def off(cls) -> "ProjectSyncOut":
        """The `sync` of a project never synced."""
        return cls.model_validate(
            {
                "enabled": False,
                "direction": Direction.BOTH,
                "interval_seconds": DEFAULT_INTERVAL_SECONDS,
                "item_types": DEFAULT_ITEM_TYPES,
                "query": None,
                "state": SyncState.OFF,
                "last_pull_at": None,
                "last_push_at": None,
                "pending": 0,
                "last_error": None,
            }
        )


class SyncCounts(ApiModel):
    imported: int = 0
    pushed: int = 0
    pulled: int = 0
    conflicts: int = 0
    errors: int = 0


class SyncLogOut(ApiModel):
    at: Timestamp
    level: str
    item_id: str | None = Field(alias="itemId")
    source_id: str | None = Field(alias="sourceId")
    message: str


class SyncStatusOut(ApiModel):
    """`GET /api/projects/{id}/sync`: the state, counts and the last log lines, newest first."""

    state: SyncState
    last_pull_at: Timestamp | None = Field(alias="lastPullAt")
    last_push_at: Timestamp | None = Field(alias="lastPushAt")
    pending: int
    last_error: SyncError | None = Field(alias="lastError")
    counts: SyncCounts
    log: list[SyncLogOut]


class SyncStarted(ApiModel):
    state: SyncState


class HookSecretOut(ApiModel):
    hook_secret: str = Field(alias="hookSecret", description="Shown once; never again")


# The sources by the names people know them by (the API's `source` values are ids).
SOURCE_NAMES = {"Microsoft.Vsts": "Azure DevOps", "Jira": "Jira", "Microsoft.Planner": "Planner"}


def source_name(source: str) -> str:
    return SOURCE_NAMES.get(source, source)


@dataclass(frozen=True)
class ProjectSyncShown:
    """A synced project as its channel's chat shows it."""

    project_id: str
    name: str  # its display name
    source: str  # its kind, as the API names it
    state: SyncState
    pending: int
    last_error: SyncError | None
    counts: SyncCounts
    last_pull_at: datetime | None
    last_push_at: datetime | None


@dataclass(frozen=True)
class SyncedAt:
    """Where a synced item lives and its sync problem, as its card shows them."""

    source: str  # the source's kind, as the API names it
    source_item_id: str | None  # None until the item is made there
    url: str | None  # the item at the source, where the source has a page for it
    status: ItemSyncStatus | None
    message: str | None = None  # the source's, when it refused the item
    source_state: str | None = None  # the source's state no mapping takes (when known)

"""What the directory shows: users as the API gives them, teams, channels and memberships."""

import re
from enum import StrEnum
from functools import cache
from typing import Annotated, Literal
from zoneinfo import available_timezones

from pydantic import AfterValidator, Field, StrictInt, StringConstraints, model_validator
from pydantic_core import PydanticCustomError

from bot.schemas import ApiModel, CollectionPage
from bot.settings import MAX_DIGEST_SECONDS, MAX_DIGEST_THRESHOLD, MAX_DUE_SOON_MINUTES

USER_SOURCE = "Microsoft.Graph.User"
_CLOCK_TIME = re.compile(r"^(?:[01][0-9]|2[0-3]):[0-5][0-9]$")
MAX_TIME_ZONE_LENGTH = 64  # the longest IANA name has 32 characters


class MembershipType(StrEnum):
    STANDARD = "standard"
    PRIVATE = "private"
    SHARED = "shared"


class UserOut(ApiModel):
    id: str = Field(alias="_id", description="The user's id in this service")
    source_id: str = Field(alias="sourceId", description="Microsoft Entra object id")
    display_name: str = Field(alias="displayName")
    email: str | None
    username: str = Field(description="User principal name")
    source: str = Field(description=f"`{USER_SOURCE}` for Teams users")


# The external source kinds (bot.projects.sources.SourceKind, above this package).
ExternalSource = Literal["Microsoft.Vsts", "Jira", "Microsoft.Planner"]
_SourceText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]


class UserMappingOut(ApiModel):
    """How the user is known at one external source (the seed's `mapping` element)."""

    id: str = Field(alias="_id")
    source: str = Field(description="The source kind")
    local_id: str = Field(alias="localId", description="The user's `_id` here")
    display_name: str = Field(alias="displayName", description="The user's name there")
    source_id: str = Field(alias="sourceId", description="The user's id there")
    email: str | None
    username: str | None
    project_hostname: str = Field(alias="projectHostname", description="The source's address")


class UserMappingIn(ApiModel):
    source: ExternalSource
    source_id: _SourceText = Field(
        alias="sourceId",
        description="The user's id there: Azure DevOps identity id, Jira account id, Entra id",
    )
    project_hostname: _SourceText = Field(
        alias="projectHostname", description="The source's address, as its projects give it"
    )
    display_name: _SourceText | None = Field(None, alias="displayName")
    email: _SourceText | None = None
    username: _SourceText | None = None


class UserPatch(ApiModel):
    """Set how a team member is known at the sources: `mapping` replaces the whole array."""

    mapping: list[UserMappingIn] = Field(max_length=100)


class MemberOut(UserOut):
    mapping: list[UserMappingOut] = Field(
        default_factory=list, description="How the user is known at the external sources"
    )


class TeamOut(ApiModel):
    id: str = Field(alias="_id")
    team_id: str = Field(alias="teamId", description="Teams' team id, sent as x-svc-teamid")
    name: str
    tenant_id: str | None = Field(alias="tenantId")
    group_id: str | None = Field(alias="groupId", description="Microsoft 365 group id")


class ChannelOut(ApiModel):
    id: str = Field(alias="_id")
    channel_id: str = Field(alias="channelId", description="Thread id, sent as x-svc-channelId")
    team_id: str = Field(alias="teamId")
    name: str
    membership_type: MembershipType = Field(alias="membershipType")


class MembershipOut(ApiModel):
    team_id: str = Field(alias="teamId")
    user: UserOut
    member: bool


class ContextOut(ApiModel):
    """The channel a request acts in, as a Teams tab needs it on first load."""

    team: TeamOut
    channel: ChannelOut
    user: UserOut


class UserPage(CollectionPage):
    """An OData collection of users."""

    value: list[MemberOut]


def _clock_time(value: str) -> str:
    if not _CLOCK_TIME.fullmatch(value):
        raise PydanticCustomError("clock_time", "must be a time of day as HH:MM, 00:00 to 23:59")
    return value


@cache  # the zone names the system (or the tzdata package) has: read once
def time_zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _time_zone(value: str) -> str:
    if value not in time_zones():
        raise PydanticCustomError(
            "time_zone", "must be an IANA time zone name, such as Europe/Paris or America/New_York"
        )
    return value


ClockTime = Annotated[
    str, AfterValidator(_clock_time), Field(json_schema_extra={"pattern": _CLOCK_TIME.pattern})
]
TimeZoneName = Annotated[
    str,
    StringConstraints(max_length=MAX_TIME_ZONE_LENGTH),
    AfterValidator(_time_zone),
    Field(
        alias="timeZone",
        description="The IANA time zone the times are read in",
        examples=["Europe/Paris"],
    ),
]


class QuietHours(ApiModel):
    """Every day from `start` until `end` (the next day when `end` comes first), as the clocks of
    `timeZone` read: notifications wait until the quiet hours end."""

    start: ClockTime = Field(description="When they begin, HH:MM (24-hour)", examples=["22:00"])
    end: ClockTime = Field(
        description="When they end (not included), HH:MM (24-hour)", examples=["07:00"]
    )
    time_zone: TimeZoneName

    @model_validator(mode="after")
    def _a_span(self) -> "QuietHours":
        if self.start == self.end:
            raise PydanticCustomError("quiet_hours", "start and end must differ")
        return self


class ChannelSettingsOut(ApiModel):
    """A channel's settings; each `…IsDefault` is true while the installation's setting applies."""

    due_soon_minutes: int = Field(
        alias="dueSoonMinutes",
        description="How long before its due date an item of this channel is due soon (DUESOON)",
    )
    due_soon_is_default: bool = Field(
        alias="dueSoonIsDefault",
        description="True while the channel follows the installation's setting",
    )
    digest_window_seconds: int = Field(
        alias="digestWindowSeconds",
        description="When more than digestThreshold items would be told of within this many "
        "seconds, one digest card tells of them all; 0: never",
    )
    digest_window_is_default: bool = Field(
        alias="digestWindowIsDefault",
        description="True while the channel follows the installation's NOTIFY_DIGEST_SECONDS",
    )
    digest_threshold: int = Field(
        alias="digestThreshold",
        description="How many items the channel is told of one by one within the digest window",
    )
    digest_threshold_is_default: bool = Field(
        alias="digestThresholdIsDefault",
        description="True while the channel follows the installation's NOTIFY_DIGEST_THRESHOLD",
    )
    quiet_hours: QuietHours | None = Field(
        alias="quietHours",
        description="When the channel's notifications wait; null: they never wait",
    )
    quiet_hours_is_default: bool = Field(
        alias="quietHoursIsDefault", description="True while the channel has no quiet hours"
    )


class ChannelSettingsPatch(ApiModel):
    """Only the fields sent change; null returns a field to the installation's setting (quiet
    hours: to none)."""

    due_soon_minutes: StrictInt | None = Field(
        None,
        alias="dueSoonMinutes",
        ge=1,
        le=MAX_DUE_SOON_MINUTES,
        description="Minutes; null: the installation's DUE_SOON_MINUTES",
    )
    digest_window_seconds: StrictInt | None = Field(
        None,
        alias="digestWindowSeconds",
        ge=0,
        le=MAX_DIGEST_SECONDS,
        description="Seconds, 0 for no digests; null: the installation's NOTIFY_DIGEST_SECONDS",
    )
    digest_threshold: StrictInt | None = Field(
        None,
        alias="digestThreshold",
        ge=1,
        le=MAX_DIGEST_THRESHOLD,
        description="Items; null: the installation's NOTIFY_DIGEST_THRESHOLD",
    )
    quiet_hours: QuietHours | None = Field(
        None,
        alias="quietHours",
        description="{start, end, timeZone}; start may come after end (overnight); null: none",
    )

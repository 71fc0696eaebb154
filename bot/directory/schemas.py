"""What the directory shows: users as the API gives them, teams, channels and memberships."""

from enum import StrEnum

from pydantic import Field, StrictInt

from bot.schemas import ApiModel, CollectionPage
from bot.settings import MAX_DUE_SOON_MINUTES

USER_SOURCE = "Microsoft.Graph.User"


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

    value: list[UserOut]


class ChannelSettingsOut(ApiModel):
    due_soon_minutes: int = Field(
        alias="dueSoonMinutes",
        description="How long before its due date an item of this channel is due soon (DUESOON)",
    )
    due_soon_is_default: bool = Field(
        alias="dueSoonIsDefault",
        description="True while the channel follows the installation's setting",
    )


class ChannelSettingsPatch(ApiModel):
    """Only the fields sent change; `dueSoonMinutes: null` returns to the installation's setting."""

    due_soon_minutes: StrictInt | None = Field(
        None, alias="dueSoonMinutes", ge=1, le=MAX_DUE_SOON_MINUTES
    )

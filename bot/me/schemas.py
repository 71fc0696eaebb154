"""The personal views' shapes: items with where they live, and the channel picker's rows."""

from enum import StrEnum

from pydantic import Field

from bot.items.schemas import BugDetails, TaskDetails
from bot.schemas import ApiModel, CollectionPage


class Whereabouts(ApiModel):
    """What a personal list adds to an item: the names of its team and channel."""

    team_name: str = Field(alias="teamName")
    channel_name: str = Field(alias="channelName")


class MyTask(TaskDetails, Whereabouts):
    """A task of the my-tasks list: the details shape plus `teamName`, `channelName`."""


class MyBug(BugDetails, Whereabouts):
    """A bug of the my-bugs list: the details shape plus `teamName`, `channelName`."""


class MyTaskPage(CollectionPage):
    """An OData collection of the caller's tasks."""

    value: list[MyTask]


class MyBugPage(CollectionPage):
    """An OData collection of the caller's bugs."""

    value: list[MyBug]


class ChannelStatus(StrEnum):
    """`New` until the channel has had an item of the list's kind, `Active` from then on."""

    NEW = "New"
    ACTIVE = "Active"


class MyChannel(ApiModel):
    """A channel row (docs/api.md, Personal views); its project fields are its native project's."""

    id: str = Field(alias="_id", description="The channel's id in this service")
    display_name: str = Field(alias="displayName")
    project_name: str = Field(alias="projectName")
    color: str = Field(description="`#rrggbbaa`, or empty")
    status: ChannelStatus
    team_id: str = Field(alias="teamId", description="Teams' team id")
    team_name: str = Field(alias="teamName")
    channel_id: str = Field(alias="channelId", description="The channel's thread id")
    channel_name: str = Field(alias="channelName")


class MyChannelPage(CollectionPage):
    """An OData collection of the channels the caller may read."""

    value: list[MyChannel]

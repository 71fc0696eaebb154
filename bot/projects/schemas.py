"""Projects as items embed them."""

from pydantic import Field

from bot.schemas import ApiModel

NATIVE_SOURCE = "Svc.Native"


class ProjectRef(ApiModel):
    """The project object inside an item's details (the seed's `projectId`)."""

    enable_bug: bool = Field(alias="enableBug")
    id: str = Field(alias="_id")
    display_name: str = Field(alias="displayName")
    hostname: str
    project_name: str = Field(alias="projectName")
    source_id: str = Field(alias="sourceId")

"""Attachments as the API shows them, and the multipart form an upload sends."""

from pydantic import BaseModel, Field

from bot.schemas import ApiModel, CollectionPage

NATIVE_SOURCE = "Svc.Native"


class AttachmentOut(ApiModel):
    """A file attached to a bug or task."""

    id: str = Field(alias="_id")
    source: str = Field(description=f"`{NATIVE_SOURCE}`: the file is kept by this service")
    source_id: str = Field(alias="sourceId", description="The attachment's own `_id`")
    source_url: str = Field(
        alias="sourceUrl", description="The file's bytes through the API (a session is required)"
    )
    download_url: str = Field(
        alias="downloadUrl",
        description="The file's bytes by a signed link that expires (no session needed)",
    )
    filename: str
    size: int = Field(description="Bytes")


class AttachmentPage(CollectionPage):
    """An OData collection of an item's attachments, oldest first."""

    value: list[AttachmentOut]


class UploadForm(BaseModel):
    """The multipart form of an upload: `file` and the Teams context a tab sends beside it."""

    file: bytes = Field(
        json_schema_extra={"format": "binary"}, description="The file: one per request"
    )
    group_id: str | None = Field(None, alias="groupId")
    channel_id: str | None = Field(
        None, alias="channelId", description="When given, must be the request's channel"
    )
    team_site_url: str | None = Field(None, alias="teamSiteUrl")
    channel_relative_url: str | None = Field(None, alias="channelRelativeUrl")

"""A discussion as the API shows it (the seed's Discussion message), and a comment's body."""

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, StrictStr

from bot.schemas import ApiModel, Timestamp

# Teams refuses a message over about 28 KB; the bot adds the author's name and escapes the HTML.
MAX_COMMENT = 8000


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


class CommentIn(BaseModel):
    """A reply posted into the item's thread through the bot."""

    content: Annotated[
        StrictStr, Field(min_length=1, max_length=MAX_COMMENT), AfterValidator(_not_blank)
    ] = Field(description=f"Plain text, at most {MAX_COMMENT} characters; sent HTML-escaped")


class Identity(ApiModel):
    """Who an application, device, conversation or user is."""

    id: str | None
    display_name: str | None = Field(alias="displayName")
    user_identity_type: str | None = Field(None, alias="userIdentityType")
    application_identity_type: str | None = Field(None, alias="applicationIdentityType")


class Sender(ApiModel):
    """`from`: the bot as `application`, or a person as `user`; the others null."""

    application: Identity | None
    device: Identity | None
    conversation: Identity | None
    user: Identity | None


class MessageBody(ApiModel):
    content_type: str = Field(alias="contentType", description="`html`")
    content: str


class ChannelIdentity(ApiModel):
    team_id: str = Field(alias="teamId")
    channel_id: str = Field(alias="channelId")


class MessageAttachment(ApiModel):
    id: str
    content_type: str = Field(alias="contentType")
    content_url: str | None = Field(alias="contentUrl")
    content: str | None = Field(description="The card, as a JSON string")
    name: str | None
    thumbnail_url: str | None = Field(alias="thumbnailUrl")


class MessageOut(ApiModel):
    """One message of an item's discussion: its root (the bot's item card) or a reply."""

    odata_context: str | None = Field(None, alias="@odata.context")
    id: str = Field(description="The Teams message id")
    etag: str
    reply_to_id: str | None = Field(alias="replyToId", description="The root's id; null: root")
    message_type: str = Field(alias="messageType")
    created_date_time: Timestamp = Field(alias="createdDateTime")
    last_modified_date_time: Timestamp = Field(alias="lastModifiedDateTime")
    last_edited_date_time: Timestamp | None = Field(alias="lastEditedDateTime")
    deleted_date_time: Timestamp | None = Field(alias="deletedDateTime")
    subject: str | None
    summary: str | None
    chat_id: str | None = Field(alias="chatId")
    importance: str
    locale: str
    web_url: str = Field(alias="webUrl", description="The message in Teams (a deep link)")
    policy_violation: Any = Field(alias="policyViolation")
    from_: Sender = Field(alias="from")
    body: MessageBody
    channel_identity: ChannelIdentity = Field(alias="channelIdentity")
    attachments: list[MessageAttachment]
    mentions: list[dict[str, Any]]
    reactions: list[dict[str, Any]]


class MessagePage(ApiModel):
    """A page of a discussion, oldest first unless `$orderby` says otherwise."""

    odata_context: str = Field(alias="@odata.context")
    odata_count: int | None = Field(None, alias="@odata.count")
    odata_next_link: str | None = Field(None, alias="@odata.nextLink")
    value: list[MessageOut]

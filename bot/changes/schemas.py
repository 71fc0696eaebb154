"""What a change stream sends (docs/api.md, Live changes)."""

from pydantic import Field

from bot.schemas import ApiModel, ItemKind, Timestamp


class ItemChangeEvent(ApiModel):
    """The data of a `change` event: one item created, updated or deleted in the channel."""

    item_id: str = Field(alias="itemId")
    item_kind: ItemKind = Field(alias="itemKind")
    change: str = Field(description="created, updated or deleted")
    at: Timestamp
    version: int = Field(description="The channel's list version of the kind after the change")


class ListChangeEvent(ApiModel):
    """The data of the personal stream's `list` event: the caller's lists of a kind moved."""

    item_kind: ItemKind = Field(alias="itemKind")
    version: int = Field(
        description="The sum of the list versions of the kind over the channels the caller may read"
    )

"""Statuses, priorities and severities: bodies in and out."""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from bot.schemas import ApiModel, CollectionPage, RefusesNull, Timestamp

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Color = Annotated[
    str, StringConstraints(pattern=r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
]
Description = Annotated[str, StringConstraints(max_length=4096)]
# "Invalid" is what an item shows when its status is gone: no status may take that name.
RESERVED_STATUS_NAME = "invalid"


class Category(StrEnum):
    NEW = "New"
    ACTIVE = "Active"
    DONE = "Done"


class TypeLabel(StrEnum):
    TASK = "Task"
    BUG = "Bug"


CATEGORY_VALUE = {Category.NEW: 0, Category.ACTIVE: 50, Category.DONE: 100}


class StatusIn(ApiModel):
    name: Name
    type: TypeLabel
    category: Category
    color: Color = "#8a8886"
    description: Description = ""
    primary: bool = False
    order: int | None = Field(None, ge=0, le=1_000_000, description="Default: after the last")
    value: int | None = Field(
        None, ge=0, le=1_000_000, description="Default: 0, 50, 100 by category"
    )


# Priorities and severities ("levels"); a status is a level with a category.


class LevelIn(ApiModel):
    name: Name
    color: Color = "#8a8886"
    description: Description = ""
    primary: bool = False
    order: int | None = Field(None, ge=0, le=1_000_000, description="Default: after the last")
    value: int = Field(0, ge=0, le=1_000_000, description="Rank: higher is more pressing")


class PriorityIn(LevelIn):
    type: TypeLabel


class SeverityIn(LevelIn):
    type: Literal["Bug"] = Field("Bug", description="Only bugs have a severity")


class LevelPatch(ApiModel):
    """Every field optional; only those sent change."""

    # The service refuses null for all but `type` (400): they can change, never be cleared.
    name: Annotated[Name | None, RefusesNull] = None
    color: Annotated[Color | None, RefusesNull] = None
    description: Annotated[Description | None, RefusesNull] = None
    primary: Annotated[bool | None, RefusesNull] = None
    order: Annotated[int | None, RefusesNull] = Field(None, ge=0, le=1_000_000)
    value: Annotated[int | None, RefusesNull] = Field(None, ge=0, le=1_000_000)
    type: TypeLabel | None = Field(None, description="Cannot change; accepted when unchanged")


class LevelOut(ApiModel):
    """A priority or a severity."""

    odata_context: str = Field(alias="@odata.context")
    odata_edit_link: str = Field(alias="@odata.editLink")
    odata_id: str = Field(alias="@odata.id")
    id: str = Field(alias="_id")
    type: TypeLabel
    name: str
    color: str
    order: int
    value: int
    primary: bool
    description: str
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class LevelPage(CollectionPage):
    """An OData collection of priorities or severities."""

    value: list[LevelOut]


class StatusPatch(LevelPatch):
    """A level's changes, plus the category."""

    category: Annotated[Category | None, RefusesNull] = None


class StatusOut(LevelOut):
    """A status: a level of the workflow, with its category."""

    category: Category


class StatusPage(CollectionPage):
    """An OData collection of statuses."""

    value: list[StatusOut]

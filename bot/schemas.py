"""Pydantic building blocks shared by every area's schemas."""

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from bot.timestamps import NOT_A_TIMESTAMP, as_utc, format_timestamp, parse_timestamp

Timestamp = Annotated[
    datetime,
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
    Field(json_schema_extra={"format": "date-time"}),
]


def _instant(value: Any) -> datetime:
    """A date input as aware UTC: text through the one parser; a datetime from our own code."""
    if isinstance(value, datetime):
        return as_utc(value)
    if isinstance(value, str):
        return parse_timestamp(value)
    # pydantic's lax mode would read a number as Unix seconds.
    raise ValueError(NOT_A_TIMESTAMP)


# Every date a request, card form or command may give (docs/api.md, Conventions: extended format).
Instant = Annotated[datetime, BeforeValidator(_instant)]


def _refuse_null(schema: dict[str, Any]) -> None:
    """The field's schema without its null branch, nor the `default: null` it would refuse."""
    if schema.get("default", ...) is None:
        del schema["default"]
    options = [option for option in schema.pop("anyOf", []) if option != {"type": "null"}]
    if len(options) == 1:
        schema.update(options[0])
    elif options:
        schema["anyOf"] = options


# For `Annotated[X | None, RefusesNull] = None`: a field a PATCH may leave out but never clear
# (the service answers null with 400), so OpenAPI must not offer null.
RefusesNull = Field(json_schema_extra=_refuse_null)


class ApiModel(BaseModel):
    """Serialised by alias (`_id`, `displayName`), readable by field name too."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class CollectionPage(ApiModel):
    """An OData collection (docs/api.md, Lists): the envelope around `value`, declared per page."""

    # A route answering one takes the list query options; OpenAPI documents them from this type.
    odata_context: str = Field(alias="@odata.context")
    odata_count: int | None = Field(None, alias="@odata.count")
    odata_next_link: str | None = Field(None, alias="@odata.nextLink")


class ErrorBody(BaseModel):
    error: str = Field(description="What went wrong, in words a user can act on")


class CodedErrorBody(BaseModel):
    """The `{code, message}` shape, both holding the same text (docs/api.md, Errors)."""

    code: str
    message: str


class Trigger(StrEnum):
    """What happened to an item, as pending events and rules name it; in the order the
    triggers list shows them."""

    ITEM_CREATED = "ITEM_CREATED"
    ITEM_UPDATED = "ITEM_UPDATED"
    DUESOON = "DUESOON"
    ITEM_DELETED = "ITEM_DELETED"
    OVERDUE = "OVERDUE"


class ItemKind(StrEnum):
    """Bugs and tasks share one model; the kind decides the paths, the type label and severity."""

    BUG = "bug"
    TASK = "task"

    @property
    def type_label(self) -> str:
        """The `type` of the kind's statuses and priorities: `Bug` or `Task`."""
        return self.value.capitalize()

    @property
    def plural(self) -> str:
        return f"{self.value}s"

"""Every card button's verb, and the data each carries: the one dispatcher reads these models.

Teams sends an `Action.Execute` back as `value.action.verb` and `value.action.data`, the data
merged with the card's input values (strings, absent or "" when left empty).
"""

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from bot.schemas import ApiModel, ItemKind

# A row's selection toggle is the input `select:<item _id>`; checked, its value is "true".
SELECT_PREFIX = "select:"
CHECKED = "true"
# Rows a bulk edit takes from one card: their ids ride in its form's button, within 28 KB.
MAX_SELECTED = 500
MAX_SKIP = 2**31 - 1  # a row number the database's OFFSET takes on both databases


class Verb(StrEnum):
    SHOW_ITEM = "item.show"
    SET_STATUS = "item.setStatus"
    ASSIGN_TO_ME = "item.assignToMe"
    EDIT_ITEM = "item.edit"  # answers with the edit form in the card's place
    DISCUSS = "item.discuss"  # starts the item's thread (or finds it): the card links to it
    DELETE_ITEM = "item.delete"  # the delete confirmation's Delete: the item goes for good
    SAVE_ITEM = "item.save"  # the create/edit form's submit: creates when itemId is absent
    MORE = "list.more"
    BULK_EDIT = "list.bulkEdit"  # answers with the bulk-edit form for the checked rows
    APPLY_BULK_EDIT = "bulk.apply"
    RUN_COMMAND = "command.run"  # the help card's buttons run a chat command
    SWITCH_RULE = "settings.switchRule"  # the settings card's switch of one notification rule
    SAVE_SETTINGS = "settings.save"  # the settings card's form


def _blank_is_none(value: Any) -> Any:
    """An input left empty arrives as "" (or not at all): both mean "not given"."""
    return None if isinstance(value, str) and not value.strip() else value


def _comma_list(value: Any) -> Any:
    """A multi-select answers "a,b,c"; no choice answers "" or nothing."""
    if isinstance(value, str):
        return [part for part in value.split(",") if part.strip()]
    return value


def _as_typed(value: Any) -> Any:
    """An input's value as the text typed: a number input may answer a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return _blank_is_none(value)


Entered = Annotated[str | None, BeforeValidator(_blank_is_none)]
Typed = Annotated[str | None, BeforeValidator(_as_typed)]
CommaList = Annotated[list[str], BeforeValidator(_comma_list)]


class ActionData(ApiModel):
    """What every action carries, so the dispatcher can route and re-check without state."""

    verb: Verb
    kind: ItemKind


class ItemAction(ActionData):
    """SHOW_ITEM, ASSIGN_TO_ME, EDIT_ITEM, DISCUSS: one item of one channel."""

    item_id: str = Field(alias="itemId")
    channel_id: str = Field(alias="channelId", description="The Teams channel (thread) id")
    number: int | None = Field(None, description="The item's #, to name it once it is deleted")


def item_action_data(
    verb: Verb, kind: ItemKind, *, item_id: str, channel_id: str, number: int | None = None
) -> dict[str, Any]:
    """An ItemAction's data as a button carries it, without the model: a list card has one per
    row, and a model each cost more than the rest of the row (tests compare the two)."""
    data: dict[str, Any] = {
        "verb": verb.value,
        "kind": kind.value,
        "itemId": item_id,
        "channelId": channel_id,
    }
    if number is not None:
        data["number"] = number
    return data


class SetStatus(ItemAction):
    status: str = Field(min_length=1, description="The status name chosen on the card")


class DeleteItem(ItemAction):
    """The delete confirmation's Delete: the item, and its number to name it once it is gone."""

    internal_id: int = Field(alias="internalId", ge=1)


class FormTarget(ActionData):
    """What the create/edit form's submit carries: the channel, and the item when editing."""

    channel_id: str = Field(alias="channelId")
    item_id: Entered = Field(None, alias="itemId", description="Absent: create")
    number: int | None = Field(None, description="The edited item's #, to name it once deleted")


class SaveItem(FormTarget):
    """The form's submit with its inputs: title, description, status, priority, severity,
    assignees, startDate, dueDate. An input absent or empty leaves its field as it is (or the
    default)."""

    title: str = Field(min_length=1)
    description: Entered = None
    status: Entered = None
    priority: Entered = None
    severity: Entered = None
    assignees: CommaList = Field(default_factory=list, description="User _ids")
    start_date: Entered = Field(None, alias="startDate", description="YYYY-MM-DD")
    due_date: Entered = Field(None, alias="dueDate", description="YYYY-MM-DD")


class More(ActionData):
    """Another page of a list (More, Previous, a quick filter): the listing command run again
    from `skip`."""

    channel_id: str | None = Field(None, alias="channelId", description="None: across channels")
    command: str
    skip: int = Field(ge=0, le=MAX_SKIP)


class BulkEdit(ActionData):
    """The list card's "bulk edit": the rows checked are read with `selected_ids`; the list's
    command and first row show the list again when none is."""

    channel_id: str = Field(alias="channelId")
    command: str | None = Field(None, description="None (a card from before): the kind's list")
    skip: int = Field(0, ge=0, le=MAX_SKIP)


class BulkTarget(ActionData):
    """What the bulk-edit form's submit carries: the channel and the ids selected."""

    channel_id: str = Field(alias="channelId")
    ids: list[str] = Field(min_length=1, max_length=MAX_SELECTED)


class ApplyBulkEdit(BulkTarget):
    """The bulk-edit form's submit with its inputs: an empty one leaves its field unchanged."""

    status: Entered = None
    priority: Entered = None
    assignee: Entered = Field(None, description="A user _id")


class RunCommand(ApiModel):
    """A chat command run from a button; in a chat, the channel it was asked to act in."""

    verb: Verb
    command: str
    channel_id: str | None = Field(None, alias="channelId", description="A Teams channel id")
    team_id: str | None = Field(None, alias="teamId", description="That channel's Teams team id")


class ChannelAction(ApiModel):
    """A button of the channel's settings card: the channel it acts in."""

    verb: Verb
    channel_id: str = Field(alias="channelId", description="The Teams channel (thread) id")


class SwitchRule(ChannelAction):
    """Switch one of the channel's notification rules on or off."""

    definition_id: str = Field(alias="definitionId")
    enable: bool


# The settings form's inputs, by id; each comes back in SaveSettings under its id.
DUE_SOON = "dueSoonMinutes"
DIGEST_WINDOW = "digestWindowSeconds"
DIGEST_THRESHOLD = "digestThreshold"
QUIET_START = "quietStart"
QUIET_END = "quietEnd"
QUIET_TIME_ZONE = "quietTimeZone"
QUIET_HOURS = "quietHours"  # no input: where an error of the three together is shown


class SaveSettings(ChannelAction):
    """The settings form's submit with its inputs as typed; an empty one follows the
    installation's setting (all three of quiet hours empty: none)."""

    due_soon_minutes: Typed = Field(None, alias=DUE_SOON)
    digest_window_seconds: Typed = Field(None, alias=DIGEST_WINDOW)
    digest_threshold: Typed = Field(None, alias=DIGEST_THRESHOLD)
    quiet_start: Typed = Field(None, alias=QUIET_START, description="HH:MM")
    quiet_end: Typed = Field(None, alias=QUIET_END, description="HH:MM")
    quiet_time_zone: Typed = Field(None, alias=QUIET_TIME_ZONE, description="An IANA name")

    def typed(self) -> dict[str, str]:
        """The inputs given, by id, to show again as they were typed."""
        return self.model_dump(exclude_none=True, exclude={"verb", "channel_id"})


def selected_ids(data: Mapping[str, Any]) -> list[str]:
    """The `_id`s of the rows checked on a list card, in card order."""
    return [
        key.removeprefix(SELECT_PREFIX)
        for key, value in data.items()
        if key.startswith(SELECT_PREFIX) and value == CHECKED
    ]

"""Event rules in and out (docs/api.md, Event rules), and the condition model an engine reads.

A rule's conditions are groups of conditions: each condition compares one item field with one
operator (and a value, for operators that take one); a group joins its conditions with its own
`ops`; `conditionsOps` joins the groups. `FIELD_TYPES` and `OPERATORS` say which operators a
field takes and how its values read; the service refuses anything else on save, so an engine
reading a stored rule (`RuleConditions.of`) meets only these shapes.
"""

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, Field, RootModel, Strict, StringConstraints

from bot.schemas import ApiModel, CollectionPage, ItemKind, RefusesNull, Timestamp, Trigger

MAX_GROUPS = 20
MAX_CONDITIONS = 20  # per group
MAX_VALUE_LENGTH = 1024
MAX_HEADERS = 20
MAX_URL_LENGTH = 2048
MAX_TEMPLATE_BYTES = 64 * 1024


_TRIGGER_WORDS = {
    Trigger.ITEM_CREATED: "is created",
    Trigger.ITEM_UPDATED: "is updated",
    Trigger.DUESOON: "is due soon",
    Trigger.ITEM_DELETED: "is deleted",
    Trigger.OVERDUE: "is overdue",
}


def display_name(kind: ItemKind, trigger: Trigger) -> str:
    """A trigger as the triggers list names it: `A task is created`, `A bug is due soon`, …"""
    return f"A {kind.value} {_TRIGGER_WORDS[trigger]}"


class Joiner(StrEnum):
    """How conditions of a group, or groups of a rule, combine."""

    AND = "and"
    OR = "or"


class ConditionField(StrEnum):
    NAME = "name"
    BODY = "body"
    STATUS = "status"
    PRIORITY = "priority"
    SEVERITY = "severity"  # bugs only
    ASSIGNED_TO = "assignedTo"
    SOURCE = "source"
    START_DATE = "startDate"
    DUE_DATE = "dueDate"
    PHASE = "phase"
    BUCKET_NAME = "bucketName"
    STATUS_CATEGORY = "statusCategory"  # New, Active or Done: the category of the item's status


class Operator(StrEnum):
    IS = "Is"
    IS_NOT = "IsNot"
    CONTAINS = "Contains"
    NOT_CONTAINS = "NotContains"
    STARTS_WITH = "StartsWith"
    HAS_VALUE = "HasValue"
    HAS_NO_VALUE = "HasNoValue"
    GREATER_THAN = "GreaterThan"
    LESS_THAN = "LessThan"
    CHANGED = "Changed"  # the field is among the event's changes
    CHANGED_TO = "ChangedTo"  # the field is among the changes and its new value is `value`


class FieldType(StrEnum):
    """How a field's values compare: text ignores case, dates are instants."""

    TEXT = "text"  # free text and value names (status, priority, …)
    CATEGORY = "category"  # New | Active | Done
    DATE = "date"  # an instant; the value is stored as the API writes timestamps
    PEOPLE = "people"  # the assignees; the value names one by _id, sourceId, username or email


FIELD_TYPES: dict[ConditionField, FieldType] = {
    ConditionField.NAME: FieldType.TEXT,
    ConditionField.BODY: FieldType.TEXT,
    ConditionField.STATUS: FieldType.TEXT,
    ConditionField.PRIORITY: FieldType.TEXT,
    ConditionField.SEVERITY: FieldType.TEXT,
    ConditionField.SOURCE: FieldType.TEXT,
    ConditionField.PHASE: FieldType.TEXT,
    ConditionField.BUCKET_NAME: FieldType.TEXT,
    ConditionField.STATUS_CATEGORY: FieldType.CATEGORY,
    ConditionField.START_DATE: FieldType.DATE,
    ConditionField.DUE_DATE: FieldType.DATE,
    ConditionField.ASSIGNED_TO: FieldType.PEOPLE,
}

_O = Operator
_PRESENCE = (_O.HAS_VALUE, _O.HAS_NO_VALUE)
_CHANGE = (_O.CHANGED, _O.CHANGED_TO)
OPERATORS: dict[FieldType, tuple[Operator, ...]] = {
    FieldType.TEXT: (
        _O.IS,
        _O.IS_NOT,
        _O.CONTAINS,
        _O.NOT_CONTAINS,
        _O.STARTS_WITH,
        *_PRESENCE,
        *_CHANGE,
    ),
    FieldType.CATEGORY: (_O.IS, _O.IS_NOT, *_CHANGE),
    FieldType.DATE: (_O.IS, _O.IS_NOT, _O.GREATER_THAN, _O.LESS_THAN, *_PRESENCE, *_CHANGE),
    # Contains: the person is among the assignees; ChangedTo has no one value to change to.
    FieldType.PEOPLE: (_O.CONTAINS, _O.NOT_CONTAINS, *_PRESENCE, _O.CHANGED),
}
# Operators that take no value: they look at presence or at the change alone.
VALUELESS = frozenset({_O.HAS_VALUE, _O.HAS_NO_VALUE, _O.CHANGED})
# Operators that look at the event's changes: only an update carries them.
LOOKS_AT_CHANGE = frozenset(_CHANGE)
CATEGORIES = ("New", "Active", "Done")


class Condition(ApiModel):
    """One comparison. `value` is None for VALUELESS operators; for dates it is a timestamp
    (`2026-12-01T00:00:00.000Z`), for `statusCategory` one of CATEGORIES, else text."""

    field: ConditionField
    ops: Operator
    value: str | None = Field(None, max_length=MAX_VALUE_LENGTH)

    @property
    def field_type(self) -> FieldType:
        return FIELD_TYPES[self.field]


class ConditionGroup(ApiModel):
    """Conditions joined by the group's `ops`."""

    ops: Joiner = Joiner.AND
    conditions: list[Condition] = Field(min_length=1, max_length=MAX_CONDITIONS)


class RuleConditions(ApiModel):
    """A stored rule's conditions as one value: groups joined by `ops`; no groups: always."""

    ops: Joiner
    groups: list[ConditionGroup]

    @classmethod
    def of(cls, conditions_ops: str, conditions: list[dict[str, Any]]) -> "RuleConditions":
        """From a definition's columns (`conditions_op`, `conditions`)."""
        return cls.model_validate({"ops": conditions_ops, "groups": conditions})


class ActionType(StrEnum):
    HTTP = "HTTP"  # a signed request to the action's url
    NOTIFICATION = "Notification"  # a card the bot posts in the item's thread


class HttpMethod(StrEnum):
    GET = "GET"
    POST = "POST"
    PUT = "PUT"
    PATCH = "PATCH"
    DELETE = "DELETE"


def _template_size(value: str) -> str:
    if len(value.encode()) > MAX_TEMPLATE_BYTES:
        raise ValueError(f"must be at most {MAX_TEMPLATE_BYTES // 1024} KiB of UTF-8")
    return value


# What RFC 9110 forbids in a field value: every control character but the tab, and DEL.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _sendable_value(value: str) -> str:
    if found := _CONTROL.search(value):
        raise ValueError(
            f"holds the control character U+{ord(found.group()):04X}; a header value may hold "
            "no control character but the tab"
        )
    return value


# RFC 9110 token characters.
HeaderName = Annotated[
    str, StringConstraints(min_length=1, max_length=256, pattern=r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
]
HeaderValue = Annotated[str, StringConstraints(max_length=4096), AfterValidator(_sendable_value)]


class Header(ApiModel):
    name: HeaderName
    value: HeaderValue


class HttpAction(ApiModel):
    """The request an HTTP rule sends; `body` is a template (`{{item.name}}`), empty: the
    event's JSON payload."""

    url: str = Field(max_length=MAX_URL_LENGTH, description="Absolute http(s), no user info")
    method: HttpMethod = HttpMethod.POST
    headers: list[Header] = Field(default_factory=list, max_length=MAX_HEADERS)
    body: Annotated[str, AfterValidator(_template_size)] = ""


EventName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
Switch = Annotated[bool, Strict()]  # true or false: "yes" or 1 is a mistake, not a switch
Action = dict[str, Any]
ACTION_DOC = "HTTP: {url, method, headers: [{name, value}], body}; Notification: {} or omitted"


class DefinitionIn(ApiModel):
    """A new rule; `tenantId`, `teamId` and `channelId` are the request's context, never read."""

    event_name: EventName = Field(alias="eventName")
    entity_type: ItemKind = Field(alias="entityType")
    enable: Switch = True
    trigger_type: Trigger = Field(alias="triggerType")
    conditions_ops: Joiner = Field(Joiner.AND, alias="conditionsOps")
    conditions: list[ConditionGroup] = Field(default_factory=list, max_length=MAX_GROUPS)
    action_type: ActionType = Field(alias="actionType")
    action: Action | None = Field(None, description=ACTION_DOC)


class DefinitionPatch(ApiModel):
    """Any subset of the creation body; the rule as it then stands is checked as a whole."""

    event_name: Annotated[EventName | None, RefusesNull] = Field(None, alias="eventName")
    entity_type: Annotated[ItemKind | None, RefusesNull] = Field(None, alias="entityType")
    enable: Annotated[Switch | None, RefusesNull] = None
    trigger_type: Annotated[Trigger | None, RefusesNull] = Field(None, alias="triggerType")
    conditions_ops: Annotated[Joiner | None, RefusesNull] = Field(None, alias="conditionsOps")
    conditions: Annotated[list[ConditionGroup] | None, RefusesNull] = Field(
        None, max_length=MAX_GROUPS
    )
    action_type: Annotated[ActionType | None, RefusesNull] = Field(None, alias="actionType")
    action: Action | None = Field(None, description=ACTION_DOC)


class DefinitionOut(ApiModel):
    odata_context: str = Field(alias="@odata.context")
    odata_edit_link: str = Field(alias="@odata.editLink")
    odata_id: str = Field(alias="@odata.id")
    id: str = Field(alias="_id")
    tenant_id: str | None = Field(alias="tenantId")
    team_id: str = Field(alias="teamId")
    channel_id: str = Field(alias="channelId")
    entity_type: ItemKind = Field(alias="entityType")
    event_name: str = Field(alias="eventName")
    enable: bool
    trigger_type: Trigger = Field(alias="triggerType")
    conditions_ops: Joiner = Field(alias="conditionsOps")
    conditions: list[ConditionGroup]
    action_type: ActionType = Field(alias="actionType")
    action: Action = Field(description=ACTION_DOC)
    disabled_reason: str | None = Field(
        alias="disabledReason", description="Why the service switched the rule off; else null"
    )
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class DefinitionCreated(DefinitionOut):
    """The create response: the only time the signing secret is shown."""

    secret: str = Field(description="whsec_…: verifies the webhook-signature of deliveries")


class DefinitionPage(CollectionPage):
    value: list[DefinitionOut]


class RotatedSecret(ApiModel):
    """A new signing secret, shown once; the previous one still signs until the time given."""

    id: str = Field(alias="_id")
    secret: str
    previous_secret_until: Timestamp = Field(alias="previousSecretUntil")


class TriggerOut(ApiModel):
    id: str = ""
    entity_type: ItemKind = Field(alias="entityType")
    name: Trigger
    display_name: str = Field(alias="displayName")


class Triggers(RootModel[list[TriggerOut]]):
    """A bare array: each trigger in its task and bug forms."""


class DeliveryState(StrEnum):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class RuleSummary(ApiModel):
    """What the chat's `rules` card shows of one rule."""

    name: str
    entity_type: ItemKind
    trigger: Trigger
    enabled: bool
    action_type: ActionType
    target: str | None  # an HTTP rule's method and host
    disabled_reason: str | None
    last_state: DeliveryState | None  # of its latest delivery; None: it never fired
    last_at: datetime | None
    last_tries: int = 0  # how often the latest delivery was tried
    last_code: int | None = None  # the response code of its latest try


class NotificationRule(ApiModel):
    """What the chat's `settings` card shows of a Notification rule: enough to switch it."""

    id: str
    name: str
    entity_type: ItemKind
    trigger: Trigger
    enabled: bool
    disabled_reason: str | None  # why the service switched it off; None when a person did


class ExplainIn(ApiModel):
    """Which item to try a rule on."""

    item_id: str = Field(alias="itemId", description="A bug or task of the rule's kind")


class DecidedBy(ApiModel):
    """The condition that settled the answer, and what the item held for it."""

    group: int = Field(description="Index of the group in `conditions`, from 0")
    condition: int = Field(description="Index of the condition in its group, from 0")
    field: ConditionField
    ops: Operator
    value: str | None
    actual: Any = Field(
        description="The item's value (dates as timestamps, assignees by display name); for "
        "Changed and ChangedTo the new value, or null when the event did not change it"
    )


class Explanation(ApiModel):
    """Whether the rule would fire for the item now, and why; nothing is sent."""

    would_fire: bool = Field(alias="wouldFire")
    decided_by: DecidedBy | None = Field(
        alias="decidedBy", description="null when the rule has no conditions"
    )
    reason: str

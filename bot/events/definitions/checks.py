"""The checks a rule passes on save (docs/api.md, Event rules): each operator on the fields it
applies to, each value read by its field's type, and the action its type takes. A refusal is an
`Invalid` naming the field as the request wrote it (`conditions.0.conditions.1.value`)."""

from typing import Any

from pydantic import ValidationError
from yarl import URL

from bot.errors import Invalid
from bot.events.definitions.header_values import MASK
from bot.events.schemas import (
    CATEGORIES,
    FIELD_TYPES,
    LOOKS_AT_CHANGE,
    OPERATORS,
    VALUELESS,
    ActionType,
    Condition,
    ConditionField,
    ConditionGroup,
    FieldType,
    HttpAction,
    Trigger,
)
from bot.schemas import ItemKind
from bot.timestamps import format_timestamp, parse_timestamp

# Headers the service writes on every delivery: a rule cannot replace them.
RESERVED_HEADERS = frozenset(
    {
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "x-svc-event",
        "content-length",
        "transfer-encoding",
        "host",
        "connection",
    }
)
URL_FIELD = "action.url"


def check_webhook_url(url: str) -> None:
    """An absolute http(s) URL with a host and no user info; anything else is a 400 naming
    `action.url`. (Where the host may point is judged apart, at save and at send.)"""
    if url != url.strip() or any(ord(character) < 0x21 for character in url):
        raise Invalid(URL_FIELD, "must not contain spaces or control characters")
    try:
        parsed = URL(url)
    except ValueError as exc:
        raise Invalid(URL_FIELD, f"is not a URL: {exc}") from None
    if not parsed.absolute or parsed.scheme not in ("http", "https"):
        raise Invalid(URL_FIELD, "must be an absolute http or https URL")
    if not parsed.host:
        raise Invalid(URL_FIELD, "must name a host")
    if parsed.user is not None or parsed.password is not None:
        raise Invalid(URL_FIELD, "must not carry a user name or password")


def checked_conditions(
    groups: list[ConditionGroup], *, kind: ItemKind, trigger: Trigger
) -> list[dict[str, Any]]:
    """The groups as stored (dates in one form, categories spelt as the API writes them)."""
    stored = []
    for group_at, group in enumerate(groups):
        conditions = []
        for at, condition in enumerate(group.conditions):
            where = f"conditions.{group_at}.conditions.{at}"
            conditions.append(_checked(condition, where, kind=kind, trigger=trigger))
        stored.append({"ops": group.ops.value, "conditions": conditions})
    return stored


def _checked(
    condition: Condition, where: str, *, kind: ItemKind, trigger: Trigger
) -> dict[str, Any]:
    field, ops = condition.field, condition.ops
    if field is ConditionField.SEVERITY and kind is ItemKind.TASK:
        raise Invalid(f"{where}.field", "tasks have no severity")
    allowed = OPERATORS[FIELD_TYPES[field]]
    if ops not in allowed:
        names = ", ".join(allowed)
        raise Invalid(f"{where}.ops", f"{ops} does not apply to {field}; it takes {names}")
    if ops in LOOKS_AT_CHANGE and trigger is not Trigger.ITEM_UPDATED:
        raise Invalid(
            f"{where}.ops", f"{ops} looks at a change, which only ITEM_UPDATED rules have"
        )
    return {"field": field.value, "ops": ops.value, "value": _value(condition, f"{where}.value")}


def _value(condition: Condition, where: str) -> str | None:
    value, ops = condition.value, condition.ops
    if ops in VALUELESS:
        if value:
            raise Invalid(where, f"{ops} takes no value")
        return None
    if value is None or not value.strip():
        raise Invalid(where, f"{ops} needs a value")
    field_type = condition.field_type
    if field_type is FieldType.DATE:
        try:
            return format_timestamp(parse_timestamp(value.strip()))
        except ValueError as exc:
            raise Invalid(where, str(exc)) from None
    if field_type is FieldType.CATEGORY:
        category = next((name for name in CATEGORIES if name.casefold() == value.casefold()), None)
        if category is None:
            raise Invalid(where, f"a status category is one of {', '.join(CATEGORIES)}")
        return category
    return value


def checked_action(action_type: ActionType, action: dict[str, Any] | None) -> dict[str, Any]:
    """The action as stored: an HTTP action's fields with their defaults; {} for Notification."""
    if action_type is ActionType.NOTIFICATION:
        if action:
            raise Invalid("action", "a Notification action takes no settings: send {} or omit it")
        return {}
    if action is None:
        raise Invalid("action", "an HTTP action needs {url, method, headers, body}")
    try:
        http = HttpAction.model_validate(action)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = ".".join(["action", *(str(part) for part in error["loc"])])
        raise Invalid(where, error["msg"]) from None
    check_webhook_url(http.url)
    for at, header in enumerate(http.headers):
        if header.name.lower() in RESERVED_HEADERS:
            raise Invalid(f"action.headers.{at}.name", f"{header.name} is set by the service")
        if header.value == MASK:
            raise Invalid(
                f"action.headers.{at}.value",
                f"{MASK} keeps a stored value, and this rule stores no {header.name} header: "
                "send its value",
            )
    return http.model_dump(mode="json")

"""Event rules of a channel: create, read, change, delete, rotate the signing secret, try one on
an item (explain), and the summary the chat's `rules` card shows."""

from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError
from sqlalchemy import bindparam, delete, func, insert, select
from yarl import URL

from bot.db.changes import write_changes
from bot.db.statements import Prepared, Row
from bot.db.tables import DeliveryAttempt, EventDefinition, EventDelivery
from bot.db.uow import ChannelScope, UnitOfWork
from bot.errors import BadRequest, NotFound
from bot.events import ssrf, subjects
from bot.events.conditions import evaluate
from bot.events.definitions import checks, header_values
from bot.events.definitions.secrets import OVERLAP_HOURS, new_secret
from bot.events.definitions.triggers import LIST as TRIGGER_LIST
from bot.events.pump import Event
from bot.events.schemas import (
    ActionType,
    DefinitionIn,
    DefinitionPatch,
    DeliveryState,
    Explanation,
    RuleConditions,
    RuleSummary,
)
from bot.ids import is_id, new_id
from bot.items import read
from bot.odata.query import Query, apply, count_statement, page
from bot.schemas import ItemKind
from bot.validation import describe_validation_error

MAX_RULES_SHOWN = 50  # in the chat's card; the API lists them all


def _channel(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "event rules belong to a channel"
    return uow.channel


async def list_triggers(uow: UnitOfWork, *, query: Query) -> list[dict[str, Any]]:
    """The triggers the query asks for, in the API's shape."""
    rows, _ = page(await uow.rows(apply(TRIGGER_LIST, query)), query)
    return [
        {"id": "", "entityType": row.entity_type, "name": row.name, "displayName": row.display_name}
        for row in rows
    ]


async def list_definitions(uow: UnitOfWork, *, query: Query) -> tuple[list[Row], int | None, bool]:
    """A page of the channel's rules, the exact count if asked, and whether more follow."""
    statement = select(EventDefinition).where(
        EventDefinition.channel_id == _channel(uow).channel_id
    )
    rows, more = page(await uow.rows(apply(statement, query)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    return rows, count, more


async def get_definition(uow: UnitOfWork, *, definition_id: str, for_update: bool = False) -> Row:
    """A rule of the request's channel; anything else (another channel's, none) is a 404."""
    definition = None
    if is_id(definition_id):
        statement = select(EventDefinition).where(
            EventDefinition.id == definition_id,
            EventDefinition.channel_id == _channel(uow).channel_id,
        )
        definition = await uow.row(statement.with_for_update() if for_update else statement)
    if definition is None:
        raise NotFound(f"Event definition '{definition_id}' not found.")
    return definition


async def check_reachable(action: dict[str, Any] | None, allowed_hosts: list[str]) -> None:
    """Refuse an HTTP action whose URL reaches a private or otherwise refused address
    (`ssrf.DestinationRefused`, naming `action.url`), before anything is stored; its host name is
    looked up, so callers do this outside a transaction when they can. The sender checks again
    at every send."""
    url = (action or {}).get("url")
    if isinstance(url, str):
        await ssrf.check_destination(url, ssrf.AllowList.parse(allowed_hosts))


async def create_definition(
    uow: UnitOfWork, *, body: DefinitionIn, disabled_reason: str | None = None
) -> Row:
    """A new rule in the channel, with a new signing secret (shown once, by the caller). A rule
    made switched off may say why (`disabled_reason`, as the service's own switch-offs do)."""
    row = definition_row(
        body,
        definition_id=new_id(),
        channel_id=_channel(uow).channel_id,
        created_by=uow.actor.user_id if uow.actor else None,
        now=uow.clock.now(),
    )
    if disabled_reason is not None and not body.enable:
        row["disabled_reason"] = disabled_reason
    await uow.execute(insert(EventDefinition).values(row))
    return Row(row)


async def definitions_named(uow: UnitOfWork, *, kind: ItemKind, name: str) -> list[Row]:
    """The channel's rules of this kind with this name (names are not unique: oldest first)."""
    return await uow.rows(
        select(EventDefinition)
        .where(
            EventDefinition.channel_id == _channel(uow).channel_id,
            EventDefinition.kind == kind.value,
            EventDefinition.name == name,
        )
        .order_by(EventDefinition.created_at, EventDefinition.id)
    )


def definition_row(
    body: DefinitionIn,
    *,
    definition_id: str,
    channel_id: str,
    created_by: str | None,
    now: datetime,
) -> dict[str, Any]:
    """A new rule's row, by column: its conditions and action checked and stored as every save
    stores them, and a new signing secret."""
    return {
        "id": definition_id,
        "channel_id": channel_id,
        "kind": body.entity_type.value,
        "name": body.event_name,
        "enabled": body.enable,
        "trigger": body.trigger_type.value,
        "conditions_op": body.conditions_ops.value,
        "conditions": checks.checked_conditions(
            body.conditions, kind=body.entity_type, trigger=body.trigger_type
        ),
        "action_type": body.action_type.value,
        "action": checks.checked_action(body.action_type, body.action),
        "secret": new_secret(),
        "previous_secret": None,
        "previous_secret_until": None,
        "disabled_reason": None,
        "disabled_announced_at": None,
        "created_by": created_by,
        "created_at": now,
        "updated_at": now,
    }


async def update_definition(uow: UnitOfWork, *, definition_id: str, patch: DefinitionPatch) -> Row:
    """Change any part of a rule; the rule as it then stands is checked as a whole."""
    definition = await get_definition(uow, definition_id=definition_id, for_update=True)
    before = dict(definition)
    changes = patch.model_dump(exclude_unset=True, by_alias=False)
    for field, value in changes.items():
        if value is None and field != "action":
            raise BadRequest(f"{_alias(field)}: must not be null")
    if "action" in changes:  # a header sent back masked keeps its value
        changes["action"] = header_values.kept(changes["action"], definition.action)
    merged = _body_of(definition) | changes
    if "action_type" in changes and "action" not in changes:
        # Another kind of action: its settings must come with it (Notification has none).
        merged["action"] = None
    try:
        body = DefinitionIn.model_validate(merged)
    except ValidationError as exc:
        raise BadRequest(describe_validation_error(exc)) from None
    definition["conditions"] = checks.checked_conditions(
        body.conditions, kind=body.entity_type, trigger=body.trigger_type
    )
    definition["action"] = checks.checked_action(body.action_type, body.action)
    if "enable" in changes:
        # Switched by a person: whatever the service recorded when it switched it off is past.
        definition["disabled_reason"] = None
        definition["disabled_announced_at"] = None
    definition["name"] = body.event_name
    definition["kind"] = body.entity_type.value
    definition["enabled"] = body.enable
    definition["trigger"] = body.trigger_type.value
    definition["conditions_op"] = body.conditions_ops.value
    definition["action_type"] = body.action_type.value
    definition["updated_at"] = uow.clock.now()
    await _write(uow, definition, before)
    return definition


async def delete_definition(uow: UnitOfWork, *, definition_id: str) -> None:
    """Delete a rule and its delivery log."""
    deleted = None
    if is_id(definition_id):
        deleted = await uow.execute(
            delete(EventDefinition)
            .where(
                EventDefinition.id == definition_id,
                EventDefinition.channel_id == _channel(uow).channel_id,
            )
            .returning(EventDefinition.id)
        )
    if not deleted:
        raise NotFound(f"Event definition '{definition_id}' not found.")


async def rotate_secret(uow: UnitOfWork, *, definition_id: str) -> Row:
    """A new signing secret; the current one keeps signing beside it for OVERLAP_HOURS."""
    definition = await get_definition(uow, definition_id=definition_id, for_update=True)
    before = dict(definition)
    now = uow.clock.now()
    definition["previous_secret"] = definition.secret
    definition["previous_secret_until"] = now + timedelta(hours=OVERLAP_HOURS)
    definition["secret"] = new_secret()
    definition["updated_at"] = now
    await _write(uow, definition, before)
    return definition


async def _write(uow: UnitOfWork, definition: Row, before: dict[str, Any]) -> None:
    """Write what changed in the rule since it was read."""
    await write_changes(uow, EventDefinition.id, definition, before)


async def explain(uow: UnitOfWork, *, definition_id: str, item_id: str) -> Explanation:
    """Whether the rule would fire for the item now (as its trigger's event, with no change),
    and the condition that decided it; nothing is sent. An item of another channel or kind,
    or none, is a 404."""
    definition = await get_definition(uow, definition_id=definition_id)
    kind = ItemKind(definition.kind)
    item = await read.get_details(uow, kind=kind, item_id=item_id)
    now = Event(
        id="",
        channel_id=definition.channel_id,
        kind=kind.value,
        item_id=item["_id"],
        trigger=definition.trigger,
        actor_id=None,
        occurred_at=uow.clock.now(),
        payload={},
    )
    # The details carry each assignee and the status's category: nothing more to look up.
    subject = subjects.subject_of(now, item, categories={}, users={})
    verdict = evaluate(RuleConditions.of(definition.conditions_op, definition.conditions), subject)
    reason = verdict.reason
    if not definition.enabled:
        reason = f"The rule is switched off, so it fires for nothing. Were it on: {reason}"
    decided = verdict.decided_by
    return Explanation.model_validate(
        {
            "would_fire": verdict.fires and definition.enabled,
            "decided_by": None
            if decided is None
            else {
                "group": decided.group,
                "condition": decided.condition,
                "field": decided.field,
                "ops": decided.ops,
                "value": decided.value,
                "actual": decided.actual,
            },
            "reason": reason,
        }
    )


def _latest(column: Any) -> Any:
    """`column` of the rule's latest delivery, as a scalar subquery of its row."""
    return (
        select(column)
        .where(EventDelivery.definition_id == EventDefinition.id)
        .order_by(EventDelivery.created_at.desc(), EventDelivery.id.desc())
        .limit(1)
        .scalar_subquery()
    )


# The response code of the latest try of the rule's latest delivery (None: no answer).
_LAST_CODE = (
    select(DeliveryAttempt.response_code)
    .where(DeliveryAttempt.delivery_id == _latest(EventDelivery.id))
    .order_by(DeliveryAttempt.at.desc(), DeliveryAttempt.id.desc())
    .limit(1)
    .scalar_subquery()
)
_RULES = Prepared(
    select(
        EventDefinition.name,
        EventDefinition.kind,
        EventDefinition.trigger,
        EventDefinition.enabled,
        EventDefinition.action_type,
        EventDefinition.action,
        EventDefinition.disabled_reason,
        _latest(EventDelivery.state).label("last_state"),
        _latest(EventDelivery.attempts).label("last_tries"),
        _LAST_CODE.label("last_code"),
        _latest(func.coalesce(EventDelivery.last_attempt_at, EventDelivery.created_at)).label(
            "last_at"
        ),
    )
    .where(EventDefinition.channel_id == bindparam("channel_id"))
    .order_by(EventDefinition.created_at, EventDefinition.id)
    .limit(MAX_RULES_SHOWN)
)
_RULE_COUNT = Prepared(
    select(func.count()).where(EventDefinition.channel_id == bindparam("channel_id"))
)


async def channel_rules(uow: UnitOfWork) -> tuple[list[RuleSummary], int]:
    """The channel's rules (the first MAX_RULES_SHOWN, oldest first) with their latest
    delivery's outcome, and how many rules the channel has."""
    values = {"channel_id": _channel(uow).channel_id}
    rows = await uow.rows(_RULES, values)
    total = len(rows)
    if total == MAX_RULES_SHOWN:
        total = await uow.value(_RULE_COUNT, values)
    return [_summary(row) for row in rows], total


def _summary(row: Any) -> RuleSummary:
    action_type = ActionType(row.action_type)
    target = None
    if action_type is ActionType.HTTP:
        target = f"{row.action.get('method', 'POST')} {URL(row.action['url']).host}"
    return RuleSummary(
        name=row.name,
        entity_type=ItemKind(row.kind),
        trigger=row.trigger,
        enabled=row.enabled,
        action_type=action_type,
        target=target,
        disabled_reason=row.disabled_reason,
        last_state=DeliveryState(row.last_state) if row.last_state else None,
        last_at=row.last_at,
        last_tries=row.last_tries or 0,
        last_code=row.last_code,
    )


def _body_of(definition: Row) -> dict[str, Any]:
    """The stored rule as a creation body, by field name."""
    return {
        "event_name": definition.name,
        "entity_type": definition.kind,
        "enable": definition.enabled,
        "trigger_type": definition.trigger,
        "conditions_ops": definition.conditions_op,
        "conditions": definition.conditions,
        "action_type": definition.action_type,
        "action": definition.action,
    }


def _alias(field: str) -> str:
    info = DefinitionPatch.model_fields[field]
    return info.alias or field

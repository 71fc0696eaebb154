"""A channel's Notification rules: the ones every channel starts with and the list the chat's
`settings` card switches.

The defaults: for bugs and for tasks, one for each moment people usually want to hear of
(created, updated, assigned, moved to Done, due soon, overdue). All are off, so the bot posts
nothing in a channel until someone there switches one on.
"""

from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import Table, bindparam, exists, func, select

from bot.db.expressions import one_of
from bot.db.statements import Prepared
from bot.db.tables import Channel, EventDefinition
from bot.db.uow import UnitOfWork
from bot.events import service as events
from bot.events.schemas import ActionType, DefinitionIn, NotificationRule
from bot.ids import new_ids
from bot.schemas import ItemKind, Trigger

_DEFINITIONS = cast(Table, EventDefinition.__table__)


def _rule(kind: ItemKind, what: str, trigger: Trigger, *conditions: dict[str, str]) -> DefinitionIn:
    """A default rule as the API's create body would give it, so it is checked and stored alike."""
    return DefinitionIn.model_validate(
        {
            "eventName": f"{kind.type_label} {what}",
            "entityType": kind.value,
            "enable": False,
            "triggerType": trigger.value,
            "conditions": [{"ops": "and", "conditions": list(conditions)}] if conditions else [],
            "actionType": ActionType.NOTIFICATION.value,
            "action": {},
        }
    )


DEFAULT_RULES: tuple[DefinitionIn, ...] = tuple(
    rule
    for kind in (ItemKind.BUG, ItemKind.TASK)
    for rule in (
        _rule(kind, "created", Trigger.ITEM_CREATED),
        _rule(kind, "updated", Trigger.ITEM_UPDATED),
        _rule(kind, "assigned", Trigger.ITEM_UPDATED, {"field": "assignedTo", "ops": "Changed"}),
        _rule(
            kind,
            "moved to Done",
            Trigger.ITEM_UPDATED,
            {"field": "statusCategory", "ops": "ChangedTo", "value": "Done"},
        ),
        _rule(kind, "due soon", Trigger.DUESOON),
        _rule(kind, "overdue", Trigger.OVERDUE),
    )
)


async def add_default_rules(uow: UnitOfWork, *, channel_ids: Collection[str]) -> None:
    """Give the default rules, switched off, to those of the channels (internal ids) that have
    no Notification rule: one insert for all. A channel that has some keeps what it has, so a
    default someone deleted stays deleted. (Callers hold the channels' locks, so two at once
    cannot both find a channel bare.)"""
    bare = await _without_notification_rules(uow, channel_ids)
    if not bare:
        return
    now = uow.clock.now()
    # Not text or JSON, so given once for every row (`UnitOfWork.insert_many`): all off, made now.
    same: dict[str, Any] = {"enabled": False, "created_at": now, "updated_at": now}
    rows = []
    for channel_id in bare:
        # Made at one instant, rules list by id next: ids rising in the rules' order keep it.
        ids = sorted(new_ids(len(DEFAULT_RULES)))
        for rule_id, body in zip(ids, DEFAULT_RULES, strict=True):
            row = events.definition_row(
                body, definition_id=rule_id, channel_id=channel_id, created_by=None, now=now
            )
            rows.append({column: value for column, value in row.items() if column not in same})
    await uow.insert_many(_DEFINITIONS, rows, same)


async def _without_notification_rules(uow: UnitOfWork, channel_ids: Collection[str]) -> list[str]:
    if not channel_ids:
        return []
    has_one = exists().where(
        EventDefinition.channel_id == Channel.id,
        EventDefinition.action_type == ActionType.NOTIFICATION.value,
    )
    return list(
        await uow.values(select(Channel.id).where(one_of(Channel.id, channel_ids), ~has_one))
    )


# The Notification rules of the channel given as `channel_id`.
_OF_THE_CHANNEL = (
    EventDefinition.channel_id == bindparam("channel_id"),
    EventDefinition.action_type == ActionType.NOTIFICATION.value,
)
_RULES = Prepared(
    select(
        EventDefinition.id,
        EventDefinition.name,
        EventDefinition.kind,
        EventDefinition.trigger,
        EventDefinition.enabled,
        EventDefinition.disabled_reason,
    )
    .where(*_OF_THE_CHANNEL)
    .order_by(EventDefinition.created_at, EventDefinition.id)
    .limit(events.MAX_RULES_SHOWN)
)
_RULE_COUNT = Prepared(select(func.count()).where(*_OF_THE_CHANNEL))


async def list_rules(uow: UnitOfWork) -> tuple[list[NotificationRule], int]:
    """The channel's Notification rules (the first `MAX_RULES_SHOWN`, oldest first), and how
    many it has."""
    assert uow.channel is not None, "a channel's rules"
    values = {"channel_id": uow.channel.channel_id}
    rows = await uow.rows(_RULES, values)
    total = len(rows)
    if total == events.MAX_RULES_SHOWN:
        total = await uow.value(_RULE_COUNT, values)
    rules = [
        NotificationRule(
            id=row.id,
            name=row.name,
            entity_type=ItemKind(row.kind),
            trigger=Trigger(row.trigger),
            enabled=row.enabled,
            disabled_reason=row.disabled_reason,
        )
        for row in rows
    ]
    return rules, total

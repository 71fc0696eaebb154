"""The events engine: turns each batch of committed pending events into deliveries.

An observer of the pending-event pump (`bot.events.pump`), so it runs in the transaction that
marks the batch processed: what it writes, and the events' being processed, commit together or
not at all. Per batch, in a few statements whatever its size: the enabled rules of the events'
channels; the item after each change, only for events some rule of their channel, kind and
trigger watches (`bot.events.subjects`); the conditions, evaluated in Python (`conditions`);
for each HTTP rule that matched, a delivery row holding the request as it will be sent
(`render`) and a job `DELIVER` that sends it. The unique (event, rule) pair of deliveries makes a
second processing of an event make nothing. The (event, rule) pairs of Notification rules
that matched go to the observers registered at start-up (`NotificationsMatched`; the item's
thread is told by `bot.discussions.notices`).
"""

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from sqlalchemy import select

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared, Row
from bot.db.tables import Channel, EventDefinition, Team
from bot.db.uow import UnitOfWork
from bot.events import render, subjects
from bot.events.conditions import evaluate
from bot.events.deliveries import made as deliveries
from bot.events.deliveries.deliver_job import DELIVER, TryDelivery
from bot.events.pump import Event
from bot.events.schemas import ActionType, ConditionField, RuleConditions
from bot.timestamps import format_timestamp

_RULES = Prepared(
    select(
        EventDefinition.id,
        EventDefinition.channel_id,
        EventDefinition.kind,
        EventDefinition.trigger,
        EventDefinition.name,
        EventDefinition.conditions_op,
        EventDefinition.conditions,
        EventDefinition.action_type,
        EventDefinition.action,
        Channel.teams_id.label("teams_channel_id"),
        Team.teams_id.label("teams_team_id"),
        Team.tenant_id,
    )
    .join_from(EventDefinition, Channel, Channel.id == EventDefinition.channel_id)
    .join(Team, Team.id == Channel.team_id)
    .where(EventDefinition.enabled, one_of_named(EventDefinition.channel_id, "channels"))
    .order_by(EventDefinition.created_at, EventDefinition.id)
)


class NotificationsMatched(Protocol):
    """Reacts, in the batch's transaction, to the (event, Notification rule) pairs that matched;
    `views` holds each event's item as the rules' conditions saw it."""

    async def __call__(
        self,
        uow: UnitOfWork,
        matched: Sequence[tuple[Event, Row]],
        views: Mapping[str, subjects.View],
    ) -> None: ...


async def match(
    uow: UnitOfWork, events: Sequence[Event], *, told: Sequence[NotificationsMatched] = ()
) -> None:
    """Deliveries and their jobs for every HTTP rule the events match; the Notification rules
    that matched go to the `told` observers (none: they are only matched)."""
    rules = await uow.rows(_RULES, {"channels": list({event.channel_id for event in events})})
    if not rules:
        return
    watching: dict[tuple[str, str, str], list[Row]] = defaultdict(list)
    for rule in rules:
        watching[rule["channel_id"], rule["kind"], rule["trigger"]].append(rule)
    watched = [
        (event, watching[key])
        for event in events
        if (key := (event.channel_id, event.kind, event.trigger)) in watching
    ]
    if not watched:
        return
    matched, views, users = await _matched(uow, watched)
    sent = [(event, rule) for event, rule in matched if rule["action_type"] == ActionType.HTTP]
    if sent:
        await _deliver(uow, sent, views, users)
    notified = [pair for pair in matched if pair[1]["action_type"] == ActionType.NOTIFICATION]
    if notified:
        for observer in told:
            await observer(uow, notified, views)


async def _matched(
    uow: UnitOfWork, watched: list[tuple[Event, list[Row]]]
) -> tuple[list[tuple[Event, Row]], dict[str, subjects.View], dict[str, dict[str, Any]]]:
    """The (event, rule) pairs whose conditions hold; the events' views and the users read."""
    events = [event for event, _ in watched]
    looked_at = subjects.needs(
        condition_group
        for _, rules in watched
        for rule in rules
        for condition_group in rule["conditions"]
    )
    views = await subjects.views(uow, events)
    categories = {}
    if ConditionField.STATUS_CATEGORY in looked_at:
        categories = await subjects.categories(uow, {event.channel_id for event in events})
    users = {}
    if ConditionField.ASSIGNED_TO in looked_at:
        users = await subjects.users(uow, subjects.referenced_users(events, views))
    conditions: dict[str, RuleConditions] = {}
    matched = []
    for event, rules in watched:
        subject = subjects.subject_of(event, views[event.id], categories=categories, users=users)
        for rule in rules:
            rule_conditions = conditions.get(rule["id"])
            if rule_conditions is None:
                rule_conditions = conditions[rule["id"]] = RuleConditions.of(
                    rule["conditions_op"], rule["conditions"]
                )
            if evaluate(rule_conditions, subject).fires:
                matched.append((event, rule))
    return matched, views, users


async def _deliver(
    uow: UnitOfWork,
    sent: list[tuple[Event, Row]],
    views: dict[str, subjects.View],
    users: dict[str, dict[str, Any]],
) -> None:
    """A delivery row per (event, HTTP rule), its request fixed now, and a job to send it."""
    events = list({event.id: event for event, _ in sent}.values())
    wanted = subjects.referenced_users(events, views)
    wanted |= {event.actor_id for event in events if event.actor_id}
    users = {**users, **await subjects.users(uow, wanted - users.keys())}
    items = await subjects.items_after(uow, events, views, users)
    requests = []
    for event, rule in sent:
        body = render.payload(
            event_id=event.id,
            event_name=rule["name"],
            trigger=event.trigger,
            kind=event.kind,
            place={
                "tenantId": rule["tenant_id"],
                "teamId": rule["teams_team_id"],
                "channelId": rule["teams_channel_id"],
            },
            occurred_at=format_timestamp(event.occurred_at),
            actor=_actor(users.get(event.actor_id or "")),
            item=items[event.id],
            changes=event.payload.get("changes", []),
        )
        requests.append((event, rule, render.request(rule["action"], body)))
    made = await deliveries.make(uow, requests)
    await DELIVER.enqueue_many(uow, [TryDelivery(delivery_id=row["id"]) for row in made])


def _actor(user: dict[str, Any] | None) -> dict[str, Any] | None:
    return {"id": user["_id"], "displayName": user["displayName"]} if user else None

"""Notification rules' side of the events engine, an observer `create_app` registers with it:
for each change some rule with the `Notification` action matched, one notice for the item's
thread (however many rules matched), @mentioning the item's assignees, and a delivery per rule
for its log (`bot.events.deliveries.told` ends them once the thread was told)."""

from collections import defaultdict
from collections.abc import Mapping, Sequence

from bot.db.statements import Row
from bot.db.uow import UnitOfWork
from bot.discussions.coalescer import Coalescer, Notice
from bot.events import subjects
from bot.events.deliveries import made as deliveries
from bot.events.pump import Event
from bot.schemas import ItemKind, Trigger

# What a delivery of a Notification rule shows as its target in the log.
METHOD = "Notification"
# What a notice says when its change says nothing of itself.
_SAID: dict[str, str] = {Trigger.DUESOON: "Due soon", Trigger.OVERDUE: "Overdue"}


class RuleNotices:
    """Hands the notices to the item threads' coalescer."""

    def __init__(self, coalescer: Coalescer) -> None:
        self._coalescer = coalescer

    async def __call__(
        self,
        uow: UnitOfWork,
        matched: Sequence[tuple[Event, Row]],
        views: Mapping[str, subjects.View],
    ) -> None:
        """Notices and logged deliveries for the (event, Notification rule) pairs that matched."""
        rules: dict[str, list[Row]] = defaultdict(list)
        events: dict[str, Event] = {}
        for event, rule in matched:
            rules[event.id].append(rule)
            events[event.id] = event
        assigned = {event_id: _assignees(views[event_id]) for event_id in events}
        people = await subjects.users(uow, {user for ids in assigned.values() for user in ids})
        notices = [
            Notice(
                event=event,
                line=_line(event),
                mentions=[
                    {"id": people[user]["sourceId"], "name": people[user]["displayName"]}
                    for user in assigned[event.id]
                    if user in people
                ],
            )
            for event in events.values()
        ]
        await self._coalescer.notify(uow, notices)
        told = [
            (event, rule, {"method": METHOD, "url": f"teams:{rule['teams_channel_id']}"})
            for event in events.values()
            for rule in rules[event.id]
        ]
        await deliveries.make(uow, told)


def _line(event: Event) -> str | None:
    if event.trigger == Trigger.ITEM_CREATED:
        return f"New {ItemKind(event.kind).type_label.lower()}"
    return _SAID.get(event.trigger)


def _assignees(view: subjects.View) -> list[str]:
    """The item's assignees' user ids (a created item's view holds them as users)."""
    return [
        person["_id"] if isinstance(person, dict) else person
        for person in view.get("assignedTo") or []
    ]

"""Personal notifications: whoever is newly assigned an item is told in their 1:1 chat with the
bot, unless they switched it off (`notify off`); nobody is told of their own action.

A pump observer (`bot.events.pump`): what it queues commits with the events' being processed,
so each message is sent once, never lost. Per batch of events, whatever its size: the items
read once (gone ones drop out), the people and their chats once, then one queued message per
person, assigner and kind: one item gives its card, several (a bulk edit) one card listing them.
"""

import logging
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import select

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared, Row
from bot.db.tables import Channel, Item, PersonalChat, Team, User
from bot.db.uow import UnitOfWork
from bot.events.pump import Event
from bot.items import read
from bot.messaging import Assigned, Messenger
from bot.pending_events import json_name
from bot.schemas import ItemKind, Trigger

log = logging.getLogger(__name__)

ASSIGNED_TO = json_name("assigned_to")
NO_CHAT = (
    "no personal chat stored: the bot has seen no install or message of theirs in a 1:1 chat "
    "(or they removed the app there)"
)
SWITCHED_OFF = "they switched personal notifications off"
SOMEONE = "Someone"  # an assigner no longer known (or none: a change made by the system)

# The items with their channel's Teams ids, as `read.render_across_channels` takes them.
_ITEMS = Prepared(
    select(
        *read.SHOWN_ITEM_COLUMNS,
        Channel.teams_id.label("teams_channel_id"),
        Team.teams_id.label("teams_team_id"),
        Team.group_id.label("group_id"),
    )
    .join_from(Item, Channel, Channel.id == Item.channel_id)
    .join(Team, Team.id == Channel.team_id)
    .where(one_of_named(read.ITEM.id, "ids"))
)
_PEOPLE = Prepared(
    select(
        User.id, User.username, User.display_name, PersonalChat.conversation_id, PersonalChat.notify
    )
    .outerjoin(PersonalChat, PersonalChat.user_id == User.id)
    .where(one_of_named(User.id, "ids"))
)

# (person told, who assigned, kind) → the items, in the order they were assigned.
Told = dict[tuple[str, str | None, str], list[str]]


class PersonalNotifications:
    """The observer; tells through `teams`."""

    def __init__(self, teams: Messenger) -> None:
        self._teams = teams

    async def observe(self, uow: UnitOfWork, events: Sequence[Event]) -> None:
        """The pump's observer: one message per person, assigner and kind the batch assigns."""
        told = newly_assigned(events)
        if not told:
            return
        items = await _items(uow, {item_id for item_ids in told.values() for item_id in item_ids})
        wanted = {user for user, _, _ in told} | {actor for _, actor, _ in told if actor}
        people = {row["id"]: row for row in await uow.rows(_PEOPLE, {"ids": list(wanted)})}
        for (user_id, actor_id, kind), item_ids in told.items():
            person = people.get(user_id)
            # Still assigned as the batch ends: an item deleted or unassigned since says nothing.
            assigned = [
                items[item_id]
                for item_id in item_ids
                if item_id in items and user_id in _assignee_ids(items[item_id])
            ]
            if person is None or not assigned:
                continue
            reason = _not_sent(person)
            if reason:
                log.info(
                    "personal notification for %s on item %s not sent: %s",
                    person["username"],
                    ", ".join(item["_id"] for item in assigned),
                    reason,
                )
                continue
            actor = people.get(actor_id or "")
            actor_name = actor["display_name"] if actor else SOMEONE
            said = Assigned(ItemKind(kind), assigned, actor_name, at=uow.clock.now())
            await self._teams.tell(uow, conversation_id=person["conversation_id"], said=said)


def newly_assigned(events: Sequence[Event]) -> Told:
    """Who the events newly assign to what: an item created with assignees, or an update that
    adds some; the assigner is never told of their own action."""
    told: dict[tuple[str, str | None, str], dict[str, None]] = defaultdict(dict)
    for event in events:
        for user_id in _added(event):
            if user_id != event.actor_id:
                told[user_id, event.actor_id, event.kind][event.item_id] = None
    return {key: list(item_ids) for key, item_ids in told.items()}


def _added(event: Event) -> list[str]:
    """The user ids an event assigns that the item did not have."""
    if event.trigger == Trigger.ITEM_CREATED:
        return list(event.payload["item"]["assignedTo"])
    if event.trigger == Trigger.ITEM_UPDATED:
        for change in event.payload["changes"]:
            if change["field"] == ASSIGNED_TO:
                before = set(change["old"] or ())
                return [user_id for user_id in change["new"] or () if user_id not in before]
    return []


async def _items(uow: UnitOfWork, item_ids: set[str]) -> dict[str, read.Details]:
    """The items as they are now, in the details shape (an item deleted since is left out)."""
    rows = await uow.rows(_ITEMS, {"ids": list(item_ids)})
    items: dict[str, read.Details] = {}
    for kind in ItemKind:
        of_kind = [row for row in rows if row["kind"] == kind.value]
        for details in await read.render_across_channels(uow, kind, of_kind):
            items[details["_id"]] = details
    return items


def _assignee_ids(item: read.Details) -> list[str]:
    return [user["_id"] for user in item["assignedTo"]]


def _not_sent(person: Row) -> str | None:
    """Why the person cannot be told in their 1:1 chat; None when they can."""
    if person["conversation_id"] is None:
        return NO_CHAT
    return None if person["notify"] else SWITCHED_OFF

"""The item after each event's change, read for a batch of events in a few statements.

Conditions need only an item's condition fields (`subject_of`); a delivery needs the whole item
in the API's details shape (`items_after`), so that is read only for the events that matched.
The item after the change is, by trigger: created, the event's payload (the item as created);
updated, the current row merged with the event's changes (a later change is not seen); deleted,
the payload's last state; due soon and overdue, the current row.
"""

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import select

from bot.db.expressions import one_of_named
from bot.db.statements import Prepared
from bot.db.tables import Channel, FieldValue, Item, Team, User
from bot.db.uow import UnitOfWork
from bot.events.conditions import Subject, people
from bot.events.pump import Event
from bot.events.schemas import FIELD_TYPES, ConditionField, FieldType
from bot.fields.catalog import STATUS, name_key
from bot.items import read
from bot.items.schemas import ITEM_FIELDS
from bot.schemas import ItemKind, Trigger
from bot.timestamps import parse_timestamp

# The triggers whose payload carries the item: as created, or its last state.
_CARRIED = (Trigger.ITEM_CREATED, Trigger.ITEM_DELETED)
View = dict[str, Any]  # an item under the API's names; assignedTo as ids or as User objects

_CURRENT = Prepared(select(*read.SHOWN_ITEM_COLUMNS).where(one_of_named(read.ITEM.id, "ids")))
_PLACED = Prepared(
    select(
        *read.SHOWN_ITEM_COLUMNS,
        Channel.teams_id.label("teams_channel_id"),
        Team.teams_id.label("teams_team_id"),
        Team.group_id,
    )
    .join_from(Item, Channel, Channel.id == Item.channel_id)
    .join(Team, Team.id == Channel.team_id)
    .where(one_of_named(read.ITEM.id, "ids"))
)
_CATEGORIES = Prepared(
    select(FieldValue.channel_id, FieldValue.type, FieldValue.name_key, FieldValue.category).where(
        one_of_named(FieldValue.channel_id, "channels"), FieldValue.field == STATUS
    )
)
_USERS = Prepared(
    select(
        User.id, User.source_id, User.display_name, User.email, User.username, User.source
    ).where(one_of_named(User.id, "ids"))
)

Categories = dict[tuple[str, str, str], str | None]  # (channel, Bug|Task, name key) → category


async def views(uow: UnitOfWork, events: Sequence[Event]) -> dict[str, View]:
    """Each event's item after its change, under the API's names (the current row read once
    for all the events that need it)."""
    wanted = [event.item_id for event in events if event.trigger not in _CARRIED]
    current = {}
    if wanted:
        for row in await uow.rows(_CURRENT, {"ids": list(set(wanted))}):
            current[row["id"]] = _row_view(row)
    return {event.id: _view(event, current.get(event.item_id)) for event in events}


def _row_view(row: Mapping[str, Any]) -> View:
    view = read.common_fields(row)
    view["severity"] = row["severity"]
    view["assignedTo"] = list(row["assignee_ids"])
    return view


def _view(event: Event, current: View | None) -> View:
    if event.trigger in _CARRIED:
        return dict(event.payload["item"])
    view: View = dict(current) if current is not None else {"_id": event.item_id}
    if event.trigger != Trigger.ITEM_UPDATED:
        view.setdefault("dueDate", event.payload.get("dueDate"))
        return view
    for change in event.payload.get("changes", []):
        view[change["field"]] = change["new"]
    return view


def needs(conditions: Iterable[Mapping[str, Any]]) -> set[ConditionField]:
    """The fields stored condition groups look at (so only their lookups are made)."""
    return {
        ConditionField(condition["field"])
        for group in conditions
        for condition in group["conditions"]
    }


async def categories(uow: UnitOfWork, channel_ids: Collection[str]) -> Categories:
    """The status categories of the channels, by name."""
    rows = await uow.rows(_CATEGORIES, {"channels": list(channel_ids)})
    return {(row["channel_id"], row["type"], row["name_key"]): row["category"] for row in rows}


async def users(uow: UnitOfWork, user_ids: Collection[str]) -> dict[str, dict[str, Any]]:
    """Users in the API's User shape, by id."""
    if not user_ids:
        return {}
    rows = await uow.rows(_USERS, {"ids": list(user_ids)})
    return {
        row["id"]: {
            "_id": row["id"],
            "sourceId": row["source_id"],
            "displayName": row["display_name"],
            "email": row["email"],
            "username": row["username"],
            "source": row["source"],
        }
        for row in rows
    }


def referenced_users(events: Iterable[Event], views: Mapping[str, View]) -> set[str]:
    """The user ids the views' and changes' assignees name (those that are ids)."""
    ids: set[str] = set()
    for event in events:
        assigned = views[event.id].get("assignedTo") or []
        ids.update(user for user in assigned if isinstance(user, str))
        for change in event.payload.get("changes", []):
            if change["field"] == ConditionField.ASSIGNED_TO.value:
                ids.update(change["old"] or [])
                ids.update(change["new"] or [])
    return ids


def subject_of(
    event: Event,
    view: View,
    *,
    categories: Categories,
    users: Mapping[str, dict[str, Any]],
) -> Subject:
    """The view as conditions read it, with the event's changes."""
    kind = ItemKind(event.kind).type_label

    def category(status: Any) -> str | None:
        if not isinstance(status, str):
            return None
        return categories.get((event.channel_id, kind, name_key(status)))

    values: dict[ConditionField, Any] = {}
    for field, field_type in FIELD_TYPES.items():
        if field_type is not FieldType.CATEGORY:
            values[field] = _typed(field_type, view.get(field.value), users)
    values[ConditionField.STATUS_CATEGORY] = category(view.get("status")) or (
        (view.get("statusId") or {}).get("category")
    )
    changed: dict[ConditionField, Any] = {}
    for change in event.payload.get("changes", []) if event.trigger == Trigger.ITEM_UPDATED else []:
        try:
            field = ConditionField(change["field"])
        except ValueError:
            continue  # a field conditions do not name (completedDate, projectId, …)
        changed[field] = _typed(FIELD_TYPES[field], change["new"], users)
        if field is ConditionField.STATUS:
            old, new = category(change["old"]), category(change["new"])
            if old != new:
                changed[ConditionField.STATUS_CATEGORY] = new
    return Subject(values=values, changed=changed)


def _typed(field_type: FieldType, value: Any, users: Mapping[str, dict[str, Any]]) -> Any:
    if value is None:
        return [] if field_type is FieldType.PEOPLE else None
    if field_type is FieldType.DATE:
        return parse_timestamp(value) if isinstance(value, str) else None
    if field_type is FieldType.PEOPLE:
        return people(_users_of(value, users))
    return value if isinstance(value, str) else str(value)


def _users_of(assigned: Sequence[Any], users: Mapping[str, dict[str, Any]]) -> list[dict]:
    """Assignees as User objects, whether given so or by id (an unknown id is left out)."""
    shown = []
    for user in assigned:
        if isinstance(user, dict):
            shown.append(user)
        elif user in users:
            shown.append(users[user])
    return shown


async def items_after(
    uow: UnitOfWork,
    events: Sequence[Event],
    views: Mapping[str, View],
    users: Mapping[str, dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Each event's item after its change in the API's details shape (as GET …/details shows
    it, without attachments): the current row rendered, with the event's own view over it."""
    alive = [event for event in events if event.trigger != Trigger.ITEM_DELETED]
    rendered: dict[str, dict[str, Any]] = {}
    if alive:
        rows = await uow.rows(_PLACED, {"ids": list({event.item_id for event in alive})})
        for kind in ItemKind:
            of_kind = [row for row in rows if row["kind"] == kind.value]
            for details in await read.render_across_channels(uow, kind, of_kind):
                rendered[details["_id"]] = details
    items = {}
    for event in events:
        view = views[event.id]
        if event.trigger == Trigger.ITEM_DELETED:
            items[event.id] = view
            continue
        item = dict(rendered.get(event.item_id) or view)
        # The event's own view replaces the item's own fields; the rest is the current row.
        item.update({name: view[name] for name in ITEM_FIELDS if name in view})
        item["assignedTo"] = _users_of(view.get("assignedTo") or [], users)
        if event.kind == ItemKind.TASK.value:
            item.pop("severity", None)
        items[event.id] = item
    return items

"""What item lists expose to OData: properties by their JSON names, and assignees for any/all."""

from dataclasses import replace
from typing import Any

from sqlalchemy import ColumnElement, String, bindparam, select
from sqlalchemy.sql.util import find_tables

from bot.db.tables import FieldValue, Item, ItemAssignee, User
from bot.db.uow import ChannelScope
from bot.odata.model import Collection, EntitySet, Property, PropertyKind, SortKey
from bot.schemas import ItemKind

K = PropertyKind


def _assigned(condition: ColumnElement[bool] | None) -> ColumnElement[bool]:
    # `id IN (the matching assignments)`, not a correlated EXISTS: SQLite then reads a
    # selective condition's few assignments (a user's) instead of probing every item of the
    # channel (docs/BENCHMARKS.md has the count's times). PostgreSQL plans both as the same
    # semi-join.
    # Never correlated (the personal views read from the assignments too); users are joined
    # only when the condition reads them, so a filter by assignee id stays cacheable.
    assignee = select(ItemAssignee.item_id).correlate(None)
    if condition is not None:
        if User.__table__ in find_tables(condition, check_columns=True):
            assignee = assignee.join(User, User.id == ItemAssignee.user_id)
        assignee = assignee.where(condition)
    return Item.id.in_(assignee)


ASSIGNED_TO = Collection(
    name="assignedTo",
    properties={
        prop.name: prop
        for prop in (
            Property("_id", ItemAssignee.user_id, K.ID),
            Property("sourceId", User.source_id, K.NAME),
            Property("displayName", User.display_name, K.TEXT),
            Property("email", User.email, K.TEXT),
            Property("username", User.username, K.TEXT),
        )
    },
    exists=_assigned,
)

KEY = Property("_id", Item.id, K.ID)
_CREATED_AT = Property("createdAt", Item.created_at, K.DATETIME)
_COMMON = (
    KEY,
    Property("internalId", Item.internal_id, K.INTEGER),
    Property("name", Item.name, K.TEXT, folded=Item.name_key),
    Property("body", Item.body, K.TEXT, sortable=False),
    Property("owner", Item.owner, K.TEXT),
    Property("status", Item.status, K.NAME),
    # A correlated lookup, not a join: lists and counts stay on the items table alone.
    Property(
        "statusValue",
        select(FieldValue.value).where(FieldValue.id == Item.status_id).scalar_subquery(),
        K.INTEGER,
    ),
    Property("priority", Item.priority, K.NAME),
    Property("source", Item.source, K.NAME),
    Property("sourceId", Item.source_id, K.NAME),
    Property("projectId", Item.project_id, K.ID),
    Property("startDate", Item.start_date, K.DATETIME),
    Property("dueDate", Item.due_date, K.DATETIME),
    Property("completedDate", Item.completed_date, K.DATETIME),
    _CREATED_AT,
    Property("updatedAt", Item.updated_at, K.DATETIME),
    Property("effort", Item.effort, K.TEXT),
    Property("phase", Item.phase, K.TEXT),
    Property("phaseName", Item.phase_name, K.TEXT),
    Property("bucketName", Item.bucket_name, K.TEXT),
    Property("entityId", Item.entity_id, K.NAME),
    # The item's sync problem (`sync/status eq 'Svc_PENDING'`, `sync/status eq null`).
    Property("sync/status", Item.sync_status, K.NAME, sortable=False),
)
# Shown in every element and selectable, but not something to filter or sort by.
OUTPUT_ONLY = frozenset({"bucket", "attachments", "statusId", "sync", "createdBy", "updatedBy"})


NEWEST_FIRST = (SortKey(_CREATED_AT, descending=True),)  # every item list's default order


def _list_set(kind: ItemKind) -> EntitySet:
    properties = list(_COMMON)
    if kind is ItemKind.BUG:
        properties.append(Property("severity", Item.severity, K.NAME))
    return EntitySet(
        name=kind.plural,
        properties={prop.name: prop for prop in properties},
        key=KEY,
        default_order=NEWEST_FIRST,
        collections={ASSIGNED_TO.name: ASSIGNED_TO},
        select_only=OUTPUT_ONLY,
        # Numbers are unique per channel and kind, which is a list's scope (not the personal
        # view's): sorted by number, the unique index reads the order (no id after it).
        unique=frozenset({"internalId"}),
    )


# Each list without its channel: what $metadata describes (the channel adds only constants).
LISTS = {kind: _list_set(kind) for kind in ItemKind}


def item_properties(kind: ItemKind) -> dict[str, Property]:
    """What an item's own columns offer to queries (lists add where the item lives)."""
    return dict(LISTS[kind].properties)


# Where a channel's list is read, bound per request (`place_values`): one entity set per kind
# serves every channel, so a query is parsed, and its statements prepared, once per shape.
_PLACE = (
    Property("channelId", bindparam("place_channel_id", type_=String), K.NAME),
    Property("teamId", bindparam("place_team_id", type_=String), K.NAME),
    Property("groupId", bindparam("place_group_id", type_=String), K.NAME),
)
_CHANNEL_LISTS = {
    kind: replace(shared, properties={**shared.properties, **{p.name: p for p in _PLACE}})
    for kind, shared in LISTS.items()
}


def entity_set(kind: ItemKind) -> EntitySet:
    """A channel's item list's OData face; the channel's Teams ids come with `place_values`."""
    return _CHANNEL_LISTS[kind]


def place_values(scope: ChannelScope) -> dict[str, Any]:
    """The values of the channel list's place properties (`channelId`, `teamId`, `groupId`)."""
    return {
        "place_channel_id": scope.teams_channel_id,
        "place_team_id": scope.teams_team_id,
        "place_group_id": scope.group_id,
    }

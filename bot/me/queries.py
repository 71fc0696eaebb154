"""The personal views' statements and what they expose to OData.

Both start from the channels the caller may read (`bot.directory.access.readable_channels`),
so an item or a channel the caller could not open in its own channel never shows here either.
"""

from typing import Any

from sqlalchemy import BindParameter, ColumnElement, Select, and_, case, func, select

from bot.db.tables import Channel, Item, ItemAssignee, ItemCounter, Project, Team
from bot.directory.access import readable_channels
from bot.items.queries import ASSIGNED_TO, OUTPUT_ONLY, item_properties
from bot.items.read import SHOWN_ITEM_COLUMNS
from bot.me.schemas import ChannelStatus
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey
from bot.odata.query import Query, count_statement
from bot.projects.schemas import NATIVE_SOURCE
from bot.schemas import ItemKind

K = PropertyKind

# Where an item lives, read with it: its details show the Teams ids, the list adds the names.
_WHEREABOUTS = (
    Channel.teams_id.label("teams_channel_id"),
    Team.teams_id.label("teams_team_id"),
    Team.group_id.label("group_id"),
    Team.name.label("team_name"),
    Channel.name.label("channel_name"),
)
_TEAM_NAME = Property("teamName", Team.name, K.TEXT)
_CHANNEL_NAME = Property("channelName", Channel.name, K.TEXT)
_PLACE = (
    Property("channelId", Channel.teams_id, K.NAME),
    Property("teamId", Team.teams_id, K.NAME),
    Property("groupId", Team.group_id, K.NAME),
    _TEAM_NAME,
    _CHANNEL_NAME,
)


# The personal list sorts and pages by the assignment's copies of the item's id and creation time
# (`bot.items.assignees` keeps them exact): the default order is then the order of an index.
_MY_KEY = Property("_id", ItemAssignee.item_id, K.ID)
_MY_CREATED_AT = Property("createdAt", ItemAssignee.created_at, K.DATETIME)


def _mine(user_id: str | BindParameter[str], kind: ItemKind) -> tuple[ColumnElement[bool], ...]:
    """The user's assignments of `kind` in channels they may read: one range of their index,
    each entry's channel checked against a list of the readable ones made once per statement."""
    readable = select(Channel.id).where(readable_channels(user_id))
    return (
        ItemAssignee.user_id == user_id,
        ItemAssignee.kind == kind.value,
        ItemAssignee.channel_id.in_(readable),
    )


def my_items_statement(user_id: str | BindParameter[str], kind: ItemKind) -> Select[Any]:
    """Items of `kind` assigned to the user, in channels they may read, with where they live.

    It starts from the user's assignments, newest first in their index: a default page reads
    about as many entries as it shows. The item, its channel and team always exist (foreign keys
    from the item down); outer joins keep the planners starting from the assignments.
    """
    return (
        select(*SHOWN_ITEM_COLUMNS, *_WHEREABOUTS)
        .select_from(ItemAssignee)
        .outerjoin(Item, Item.id == ItemAssignee.item_id)
        .outerjoin(Channel, Channel.id == ItemAssignee.channel_id)
        .outerjoin(Team, Team.id == Channel.team_id)
        .where(*_mine(user_id, kind))
    )


def my_items_count(user_id: str | BindParameter[str], kind: ItemKind, query: Query) -> Select[Any]:
    """How many items `my_items_statement` gives under the query's filter. Without a filter, the
    assignments alone are counted, inside their index (SQLite would still visit outer-joined
    tables for an aggregate)."""
    if query.filter is not None:
        return count_statement(my_items_statement(user_id, kind), query)
    return select(func.count()).select_from(ItemAssignee).where(*_mine(user_id, kind))


def my_items(kind: ItemKind) -> EntitySet:
    """The personal item list's OData face: the channel list's, where the item lives added."""
    return EntitySet(
        name=f"my{kind.plural.capitalize()}",
        properties={
            **item_properties(kind),
            **{prop.name: prop for prop in (_MY_KEY, _MY_CREATED_AT, *_PLACE)},
        },
        key=_MY_KEY,
        default_order=(SortKey(_MY_CREATED_AT, descending=True),),
        collections={ASSIGNED_TO.name: ASSIGNED_TO},
        select_only=OUTPUT_ONLY,
    )


# The channel's counter of the list's kind has given a number: it has had an item.
_STATUS = case(
    (ItemCounter.last_internal_id > 0, ChannelStatus.ACTIVE.value), else_=ChannelStatus.NEW.value
)
_CHANNEL_KEY = Property("_id", Channel.id, K.ID)
_CHANNEL_PROPERTIES = {
    prop.name: prop
    for prop in (
        _CHANNEL_KEY,
        Property("displayName", Project.display_name, K.TEXT),
        Property("projectName", Project.project_name, K.TEXT),
        Property("color", Project.color, K.NAME),
        Property("status", _STATUS, K.NAME),
        *_PLACE,
    )
    if prop.name != "groupId"  # not a field of a channel row (docs/api.md, Personal views)
}


def my_channels_statement(user_id: str | BindParameter[str], kind: ItemKind) -> Select[Any]:
    """One row per channel the user may read, with its native project and its status for `kind`."""
    return (
        select(
            Channel.id,
            Project.display_name,
            Project.project_name,
            Project.color,
            _STATUS.label("status"),
            Team.teams_id.label("teams_team_id"),
            Team.name.label("team_name"),
            Channel.teams_id.label("teams_channel_id"),
            Channel.name.label("channel_name"),
        )
        .select_from(Channel)
        .join(Team, Team.id == Channel.team_id)
        .join(Project, and_(Project.channel_id == Channel.id, Project.source == NATIVE_SOURCE))
        .join(
            ItemCounter,
            and_(ItemCounter.channel_id == Channel.id, ItemCounter.kind == kind.value),
        )
        .where(readable_channels(user_id))
    )


def my_channels(kind: ItemKind) -> EntitySet:
    """The channel picker's OData face for one kind's personal view."""
    return EntitySet(
        name=f"my{kind.type_label}Channels",
        properties=_CHANNEL_PROPERTIES,
        key=_CHANNEL_KEY,
        default_order=(SortKey(_TEAM_NAME), SortKey(_CHANNEL_NAME)),
    )

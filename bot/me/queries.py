"""The personal views' statements and what they expose to OData.

Both start from the channels the caller may read (`directory.readable_channels`), so an item or
a channel the caller could not open in its own channel never shows here either.
"""

from typing import Any

from sqlalchemy import Boolean, ColumnElement, ScalarSelect, Select, and_, case, func, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from bot.db.tables import Channel, Item, ItemAssignee, ItemCounter, Project, Team
from bot.directory.service import readable_channels
from bot.items.queries import ASSIGNED_TO, KEY, NEWEST_FIRST, OUTPUT_ONLY, item_properties
from bot.me.schemas import ChannelStatus
from bot.odata.model import EntitySet, Property, PropertyKind, SortKey
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


class _AmongIds(FunctionElement[bool]):
    """`column` among the ids a scalar subquery gives (see the compilers below)."""

    type = Boolean()
    inherit_cache = True
    name = "among_ids"
    _is_implicitly_boolean = True  # a condition already: no `= 1` on SQLite


@compiles(_AmongIds)
def _in_subquery(element: _AmongIds, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = element.clauses
    assert isinstance(ids, ScalarSelect)
    return compiler.process(column.in_(ids.element), **kw)


@compiles(_AmongIds, "postgresql")
def _any_of_array(element: _AmongIds, compiler: SQLCompiler, **kw: Any) -> str:
    # As `IN (subquery)`, PostgreSQL's planner hash-joins a scan of every item to the caller's
    # assignments; an array of their ids makes it look those items up by key (about 2.5x less
    # work per statement for 2,000 assignments among 100k items: docs/BENCHMARKS.md).
    column, ids = element.clauses
    return compiler.process(column == func.any(func.array(ids)), **kw)


def assigned_to(user_id: str) -> ColumnElement[bool]:
    """Items assigned to the user."""
    ids = select(ItemAssignee.item_id).where(ItemAssignee.user_id == user_id)
    return _AmongIds(Item.id, ids.scalar_subquery())


def my_items_statement(user_id: str, kind: ItemKind) -> Select[Any]:
    """Items of `kind` assigned to the user, in channels they may read, with where they live."""
    item = Item.__table__.c
    return (
        select(*item, *_WHEREABOUTS)
        .join(Channel, Channel.id == Item.channel_id)
        .join(Team, Team.id == Channel.team_id)
        .where(assigned_to(user_id), Item.kind == kind.value, readable_channels(user_id))
    )


def my_items(kind: ItemKind) -> EntitySet:
    """The personal item list's OData face: the channel list's, where the item lives added."""
    return EntitySet(
        name=f"my{kind.plural.capitalize()}",
        properties={**item_properties(kind), **{prop.name: prop for prop in _PLACE}},
        key=KEY,
        default_order=NEWEST_FIRST,
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
    if prop.name != "groupId"  # not a field of the seed's Channel row
}


def my_channels_statement(user_id: str, kind: ItemKind) -> Select[Any]:
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

"""Who may act in which channel, read by everything that authorizes: the rule (a member of the
channel's team, in a kind of channel that is served, not deleted in Teams) applied to one
channel a request names, to the caller of a bot activity read in one statement, and as a
condition on every channel a user may read."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVarTuple

from sqlalchemy import ColumnElement, Select, and_, bindparam, select

from bot.db.statements import Prepared
from bot.db.tables import Channel, Team, TeamMember, User
from bot.db.types import SqlExpression
from bot.db.uow import Actor, ChannelScope, UnitOfWork
from bot.directory.actors import ACTOR_COLUMNS, actor_of_row
from bot.directory.schemas import MembershipType
from bot.errors import PRIVATE_CHANNELS_UNSUPPORTED, Forbidden

# Requests are served in standard channels only; private and shared ones are recorded, and
# answer 403 until their own membership is modelled (docs/api.md, Where a request acts).
READABLE_MEMBERSHIP = MembershipType.STANDARD


async def resolve_channel(
    uow: UnitOfWork, *, user_id: str, team_id: str, channel_id: str
) -> ChannelScope:
    """The channel a request names, if the user is a member of its team and it is supported."""
    statement = select(*CHANNEL_ACCESS).select_from(User)
    row = await uow.row(
        join_channel_access(statement, User.id).where(User.id == user_id),
        {"team": team_id, "channel": channel_id},
    )
    return admit_to_channel(row, team_id=team_id, channel_id=channel_id)


Ts = TypeVarTuple("Ts")

# What deciding a request's channel needs, read in the same statement as the caller.
CHANNEL_ACCESS = (
    Team.id.label("scope_team_id"),
    Team.teams_id.label("scope_teams_team_id"),
    Team.group_id.label("scope_group_id"),
    Team.tenant_id.label("scope_tenant_id"),
    TeamMember.user_id.label("scope_member"),
    Channel.id.label("scope_channel_id"),
    Channel.teams_id.label("scope_teams_channel_id"),
    Channel.team_id.label("scope_channel_team_id"),
    Channel.membership_type.label("scope_membership_type"),
    Channel.deleted_at.label("scope_channel_deleted_at"),
    Channel.name.label("scope_channel_name"),
)


def join_channel_access(statement: Select[*Ts], user_id: SqlExpression) -> Select[*Ts]:
    """`statement` joined to the team and channel bound as `:team` and `:channel`."""
    return (
        statement.outerjoin(Team, Team.teams_id == bindparam("team"))
        .outerjoin(TeamMember, (TeamMember.team_id == Team.id) & (TeamMember.user_id == user_id))
        .outerjoin(Channel, Channel.teams_id == bindparam("channel"))
    )


def admit_to_channel(
    row: Mapping[Any, Any] | None, *, team_id: str, channel_id: str
) -> ChannelScope:
    """The scope of a row with CHANNEL_ACCESS columns, if the caller may act in that channel."""
    # By subscript: every channel request runs this, and a row's attributes cost an exception
    # each before they answer.
    # An unknown team and a team of which the caller is not a member look the same from outside.
    if row is None or row["scope_team_id"] is None or row["scope_member"] is None:
        raise Forbidden(f"You are not a member of team '{team_id}'.")
    if row["scope_channel_id"] is None or row["scope_channel_team_id"] != row["scope_team_id"]:
        raise Forbidden(f"Channel '{channel_id}' is not a channel of team '{team_id}'.")
    if row["scope_membership_type"] != READABLE_MEMBERSHIP:
        raise Forbidden(PRIVATE_CHANNELS_UNSUPPORTED)
    if row["scope_channel_deleted_at"] is not None:
        said = f"Channel '{row['scope_channel_name']}' has been deleted in Teams."
        raise Forbidden(f"Channel '{channel_id}' has been deleted in Teams.", said=said)
    return ChannelScope(
        team_id=row["scope_team_id"],
        teams_team_id=row["scope_teams_team_id"],
        channel_id=row["scope_channel_id"],
        teams_channel_id=row["scope_teams_channel_id"],
        group_id=row["scope_group_id"],
        tenant_id=row["scope_tenant_id"],
    )


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a bot activity comes from, read with the team and channel it names."""

    actor: Actor
    on_roster: bool  # a member of the named team (False when none is named)
    access: Any  # a row with the CHANNEL_ACCESS columns, for `admit_to_channel`


# Columns, not entities, and one statement: every bot turn runs this.
_CALLER = Prepared(
    join_channel_access(
        select(
            *ACTOR_COLUMNS,
            *CHANNEL_ACCESS,
        )
        .select_from(User)
        .where(User.source_id == bindparam("object_id")),
        User.id,
    )
)


async def find_caller(
    uow: UnitOfWork, *, object_id: str, team_id: str | None, channel_id: str | None
) -> Caller | None:
    """The user with this Entra object id and their access to the team and channel named (the
    Teams ids of an activity), or None for a user the directory does not know."""
    params = {"object_id": object_id, "team": team_id, "channel": channel_id}
    row = await uow.row(_CALLER, params)
    if row is None:
        return None
    return Caller(actor_of_row(row), on_roster=row.scope_member is not None, access=row)


def readable_channels(user_id: SqlExpression | str) -> ColumnElement[bool]:
    """The `channels` rows the user may read: the rule `admit_to_channel` applies to one channel
    (a member of its team, a kind of channel that is served), as a condition for many."""
    teams = select(TeamMember.team_id).where(TeamMember.user_id == user_id)
    return and_(
        Channel.membership_type == READABLE_MEMBERSHIP,
        Channel.deleted_at.is_(None),
        Channel.team_id.in_(teams),
    )


async def resolve_channel_by_id(uow: UnitOfWork, *, user_id: str, channel_id: str) -> ChannelScope:
    """The channel named by its Teams id alone (a card clicked in a chat), if the user may act
    in it."""
    team_id = await uow.value(
        select(Team.teams_id)
        .join(Channel, Channel.team_id == Team.id)
        .where(Channel.teams_id == channel_id)
    )
    if team_id is None:
        raise Forbidden(f"Channel '{channel_id}' is not known.")
    return await resolve_channel(uow, user_id=user_id, team_id=team_id, channel_id=channel_id)

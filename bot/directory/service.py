"""Directory rules: upserts from the CLI, SSO and roster sync; lookups for authorization."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVarTuple

from sqlalchemy import ColumnElement, Select, and_, bindparam, delete, or_, select

from bot.db import driver
from bot.db.tables import Channel, Team, TeamMember, Tenant, User
from bot.db.types import SqlExpression
from bot.directory.schemas import (
    USER_SOURCE,
    ChannelOut,
    MembershipOut,
    MembershipType,
    TeamOut,
    UserOut,
)
from bot.errors import PRIVATE_CHANNELS_UNSUPPORTED, Conflict, Forbidden, Invalid, NotFound
from bot.ids import is_id, new_id
from bot.odata.query import Query, apply, count_statement, page
from bot.uow import Actor, ChannelScope, UnitOfWork

# Requests are served in standard channels only; private and shared ones are recorded, and
# answer 403 until their own membership is modelled (api.md §1).
READABLE_MEMBERSHIP = MembershipType.STANDARD


def user_out(user: User) -> UserOut:
    return UserOut(
        id=user.id,
        source_id=user.source_id,
        display_name=user.display_name,
        email=user.email,
        username=user.username,
        source=user.source,
    )


def team_out(team: Team) -> TeamOut:
    return TeamOut(
        id=team.id,
        team_id=team.teams_id,
        name=team.name,
        tenant_id=team.tenant_id,
        group_id=team.group_id,
    )


def channel_out(channel: Channel, team: Team) -> ChannelOut:
    return ChannelOut(
        id=channel.id,
        channel_id=channel.teams_id,
        team_id=team.teams_id,
        name=channel.name,
        membership_type=MembershipType(channel.membership_type),
    )


def actor_of(user: UserOut) -> Actor:
    """The user as the actor of work done on their behalf (CLI, demo, bot)."""
    return _actor(user.id, user)


# The user's columns as a caller's row carries them: `actor_of_row` reads them back.
ACTOR_COLUMNS = (
    User.id.label("user_id"),
    User.source_id,
    User.username,
    User.display_name,
    User.email,
    User.source,
)


def actor_of_row(row: Any) -> Actor:
    """The actor of a row read with ACTOR_COLUMNS."""
    return _actor(row.user_id, row)


def _actor(user_id: str, user: Any) -> Actor:
    """An actor from a user's id and anything with the other user fields by name."""
    return Actor(
        user_id=user_id,
        source_id=user.source_id,
        username=user.username,
        display_name=user.display_name,
        email=user.email,
        source=user.source,
    )


def actor_out(actor: Actor) -> UserOut:
    """The signed-in user as the API shows users (already loaded by authentication)."""
    return UserOut(
        id=actor.user_id,
        source_id=actor.source_id,
        display_name=actor.display_name,
        email=actor.email,
        username=actor.username,
        source=actor.source,
    )


async def ensure_tenant(uow: UnitOfWork, *, tenant_id: str) -> None:
    """Record a tenant the first time it is seen."""
    if await uow.session.get(Tenant, tenant_id) is None:
        uow.session.add(Tenant(id=tenant_id, created_at=uow.clock.now()))
        await uow.session.flush()


async def upsert_team(
    uow: UnitOfWork,
    *,
    team_id: str,
    name: str,
    tenant_id: str | None = None,
    group_id: str | None = None,
) -> TeamOut:
    """Create the team, or update its name and any tenant or group id given."""
    _require_text("teamId", team_id)
    _require_text("name", name)
    if tenant_id:
        await ensure_tenant(uow, tenant_id=tenant_id)
    now = uow.clock.now()
    team = await _team_by_teams_id(uow, team_id)
    if team is None:
        team = Team(
            id=new_id(),
            teams_id=team_id,
            name=name,
            tenant_id=tenant_id or None,
            group_id=group_id or None,
            created_at=now,
            updated_at=now,
        )
        uow.session.add(team)
    else:
        team.name = name
        team.tenant_id = tenant_id or team.tenant_id
        team.group_id = group_id or team.group_id
        team.updated_at = now
    await uow.session.flush()
    return team_out(team)


async def upsert_channel(
    uow: UnitOfWork,
    *,
    team_id: str,
    channel_id: str,
    name: str,
    membership_type: MembershipType = MembershipType.STANDARD,
) -> ChannelOut:
    """Create the channel in its team, or rename it and update its membership type."""
    _require_text("channelId", channel_id)
    _require_text("name", name)
    team = await _team_by_teams_id(uow, team_id)
    if team is None:
        raise NotFound(f"Team '{team_id}' is not known; add the team first.")
    now = uow.clock.now()
    channel = await _channel_by_teams_id(uow, channel_id)
    if channel is None:
        channel = Channel(
            id=new_id(),
            team_id=team.id,
            teams_id=channel_id,
            name=name,
            membership_type=membership_type.value,
            created_at=now,
            updated_at=now,
        )
        uow.session.add(channel)
    elif channel.team_id != team.id:
        raise Conflict(f"Channel '{channel_id}' belongs to another team.")
    else:
        channel.name = name
        channel.membership_type = membership_type.value
        channel.deleted_at = None  # recorded again: restored in Teams
        channel.updated_at = now
    await uow.session.flush()
    return channel_out(channel, team)


async def mark_channel_deleted(uow: UnitOfWork, *, team_id: str, channel_id: str) -> None:
    """Teams deleted the channel: requests naming it are refused; its items are kept."""
    team = await _require_team(uow, team_id)
    channel = await _channel_by_teams_id(uow, channel_id)
    if channel is None or channel.team_id != team.id:
        return  # never recorded here: nothing to keep
    channel.deleted_at = channel.updated_at = uow.clock.now()
    await uow.session.flush()


async def upsert_user(
    uow: UnitOfWork,
    *,
    source_id: str,
    username: str,
    display_name: str,
    email: str | None = None,
) -> UserOut:
    """Create or update a user, unique by Entra object id; UPNs must stay unique too."""
    _require_text("id", source_id, limit=64)
    _require_text("username", username)
    if "@" not in username:
        raise Invalid("username", "a user principal name looks like user@domain")
    _require_text("displayName", display_name)
    username = username.strip().lower()
    now = uow.clock.now()
    user = await _one(uow, select(User).where(User.source_id == source_id))
    holder = await _one(uow, select(User).where(User.username == username))
    if holder is not None and holder is not user:
        raise Conflict(f"Username '{username}' belongs to another user.")
    if user is None:
        user = User(
            id=new_id(),
            source_id=source_id,
            username=username,
            display_name=display_name,
            email=email or None,
            source=USER_SOURCE,
            created_at=now,
            updated_at=now,
        )
        uow.session.add(user)
    else:
        user.username = username
        user.display_name = display_name
        user.email = email or user.email
        user.updated_at = now
    await uow.session.flush()
    return user_out(user)


async def find_user(uow: UnitOfWork, *, ref: str) -> User:
    """A user by `_id`, else Entra object id, else UPN or email (api.md's resolution order)."""
    for condition in _user_lookups(ref):
        user = await _one(uow, select(User).where(condition).limit(1))
        if user is not None:
            return user
    raise NotFound(f"User '{ref}' is not known.")


async def add_member(uow: UnitOfWork, *, team_id: str, user_ref: str) -> MembershipOut:
    """Make the user a member of the team (no change if already one)."""
    team = await _require_team(uow, team_id)
    user = await find_user(uow, ref=user_ref)
    if await uow.session.get(TeamMember, (team.id, user.id)) is None:
        uow.session.add(TeamMember(team_id=team.id, user_id=user.id, created_at=uow.clock.now()))
        await uow.session.flush()
    return MembershipOut(team_id=team.teams_id, user=user_out(user), member=True)


async def remove_member(uow: UnitOfWork, *, team_id: str, user_ref: str) -> MembershipOut:
    """End the user's membership of the team (no change if not a member)."""
    team = await _require_team(uow, team_id)
    user = await find_user(uow, ref=user_ref)
    await uow.session.execute(
        delete(TeamMember).where(TeamMember.team_id == team.id, TeamMember.user_id == user.id)
    )
    return MembershipOut(team_id=team.teams_id, user=user_out(user), member=False)


async def resolve_channel(
    uow: UnitOfWork, *, user_id: str, team_id: str, channel_id: str
) -> ChannelScope:
    """The channel a request names, if the user is a member of its team and it is supported."""
    statement = select(*CHANNEL_ACCESS).select_from(User)
    row = (
        (
            await uow.session.execute(
                join_channel_access(statement, User.id).where(User.id == user_id),
                {"team": team_id, "channel": channel_id},
            )
        )
        .mappings()
        .first()
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
    # By subscript: every channel request runs this, and a driver row's attributes cost an
    # exception each before they answer.
    # An unknown team and a team of which the caller is not a member look the same from outside.
    if row is None or row["scope_team_id"] is None or row["scope_member"] is None:
        raise Forbidden(f"You are not a member of team '{team_id}'.")
    if row["scope_channel_id"] is None or row["scope_channel_team_id"] != row["scope_team_id"]:
        raise Forbidden(f"Channel '{channel_id}' is not a channel of team '{team_id}'.")
    if row["scope_membership_type"] != READABLE_MEMBERSHIP:
        raise Forbidden(PRIVATE_CHANNELS_UNSUPPORTED)
    if row["scope_channel_deleted_at"] is not None:
        raise Forbidden(f"Channel '{channel_id}' has been deleted in Teams.")
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
_CALLER = driver.Prepared(
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
    row = await _CALLER.one(uow.reads, params)
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


async def list_members(
    uow: UnitOfWork, *, query: Query
) -> tuple[list[UserOut], int | None, Mapping[str, Any] | None]:
    """A page of the team's members, the exact count if asked, and the last row read when more
    follow (the next link's key)."""
    assert uow.channel is not None, "members are listed in a channel"
    statement = (
        select(User.id, User.source_id, User.display_name, User.email, User.username, User.source)
        .join(TeamMember, TeamMember.user_id == User.id)
        .where(TeamMember.team_id == uow.channel.team_id)
    )
    fetched = (await uow.session.execute(apply(statement, query, keyed=True))).mappings().all()
    rows, more = page(fetched, query)
    count = await uow.session.scalar(count_statement(statement, query)) if query.count else None
    members = [UserOut.model_validate(dict(row)) for row in rows]
    return members, count, dict(rows[-1]) if more else None


async def describe_channel(uow: UnitOfWork, *, scope: ChannelScope) -> tuple[TeamOut, ChannelOut]:
    team = await uow.session.get(Team, scope.team_id)
    channel = await uow.session.get(Channel, scope.channel_id)
    if team is None or channel is None:
        raise NotFound("The channel no longer exists.")
    return team_out(team), channel_out(channel, team)


async def tenant_has_team(uow: UnitOfWork, *, tenant_id: str) -> bool:
    """Whether any team of the tenant is installed (SSO's default tenant rule)."""
    found = await uow.session.scalar(select(Team.id).where(Team.tenant_id == tenant_id).limit(1))
    return found is not None


def _user_lookups(ref: str) -> list:
    ref = ref.strip()
    lookups = [User.source_id == ref, or_(User.username == ref.lower(), User.email == ref)]
    return [User.id == ref, *lookups] if is_id(ref) else lookups


async def _require_team(uow: UnitOfWork, team_id: str) -> Team:
    team = await _team_by_teams_id(uow, team_id)
    if team is None:
        raise NotFound(f"Team '{team_id}' is not known.")
    return team


async def _team_by_teams_id(uow: UnitOfWork, team_id: str) -> Team | None:
    return await _one(uow, select(Team).where(Team.teams_id == team_id))


async def _channel_by_teams_id(uow: UnitOfWork, channel_id: str) -> Channel | None:
    return await _one(uow, select(Channel).where(Channel.teams_id == channel_id))


async def _one(uow: UnitOfWork, statement):
    return (await uow.session.execute(statement)).scalar_one_or_none()


def _require_text(field: str, value: str | None, limit: int = 255) -> None:
    if not value or not value.strip():
        raise Invalid(field, "must not be empty")
    if len(value) > limit:
        raise Invalid(field, f"must be at most {limit} characters")


async def list_team_members(uow: UnitOfWork, *, scope: ChannelScope) -> list[UserOut]:
    """The members of the scope's team, by name: whom a form may assign."""
    users = await uow.session.scalars(
        select(User)
        .join(TeamMember, TeamMember.user_id == User.id)
        .where(TeamMember.team_id == scope.team_id)
        .order_by(User.display_name, User.id)
    )
    return [user_out(user) for user in users]


async def resolve_channel_by_id(uow: UnitOfWork, *, user_id: str, channel_id: str) -> ChannelScope:
    """The channel named by its Teams id alone (a card clicked in a chat), if the user may act
    in it."""
    team_id = await uow.session.scalar(
        select(Team.teams_id)
        .join(Channel, Channel.team_id == Team.id)
        .where(Channel.teams_id == channel_id)
    )
    if team_id is None:
        raise Forbidden(f"Channel '{channel_id}' is not known.")
    return await resolve_channel(uow, user_id=user_id, team_id=team_id, channel_id=channel_id)

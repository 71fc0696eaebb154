"""Tenants, teams and channels: recorded (created, renamed, marked deleted) by the admin CLI and
the bot's installation and roster sync, and read back as the API shows them. A team is named by
its Teams id; a channel belongs to one team for good, and a channel deleted in Teams is kept,
marked, so its items stay."""

from sqlalchemy import insert, select, update

from bot.db.statements import Row
from bot.db.tables import Channel, Team, Tenant
from bot.db.uow import ChannelScope, UnitOfWork
from bot.directory.schemas import ChannelOut, MembershipType, TeamOut
from bot.directory.shared import channel_by_teams_id, require_team, require_text, team_by_teams_id
from bot.errors import Conflict, NotFound
from bot.ids import new_id


def team_out(team: Row) -> TeamOut:
    return TeamOut(
        id=team.id,
        team_id=team.teams_id,
        name=team.name,
        tenant_id=team.tenant_id,
        group_id=team.group_id,
    )


def channel_out(channel: Row, team: Row) -> ChannelOut:
    return ChannelOut(
        id=channel.id,
        channel_id=channel.teams_id,
        team_id=team.teams_id,
        name=channel.name,
        membership_type=MembershipType(channel.membership_type),
    )


async def ensure_tenant(uow: UnitOfWork, *, tenant_id: str) -> None:
    """Record a tenant the first time it is seen."""
    await uow.hold(f"tenant {tenant_id}")  # a racing first sight waits, then sees it
    if await uow.value(select(Tenant.id).where(Tenant.id == tenant_id)) is None:
        await uow.execute(insert(Tenant).values(id=tenant_id, created_at=uow.clock.now()))


async def upsert_team(
    uow: UnitOfWork,
    *,
    team_id: str,
    name: str,
    tenant_id: str | None = None,
    group_id: str | None = None,
) -> TeamOut:
    """Create the team, or update its name and any tenant or group id given."""
    require_text("teamId", team_id)
    require_text("name", name)
    if tenant_id:
        await ensure_tenant(uow, tenant_id=tenant_id)
    # Roster syncs of one new team race at install: the second waits, then updates.
    await uow.hold(f"team {team_id}")
    now = uow.clock.now()
    team = await team_by_teams_id(uow, team_id)
    if team is None:
        [team] = await uow.execute(
            insert(Team)
            .values(
                id=new_id(),
                teams_id=team_id,
                name=name,
                tenant_id=tenant_id or None,
                group_id=group_id or None,
                created_at=now,
                updated_at=now,
            )
            .returning(*Team.__table__.c)
        )
    else:
        [team] = await uow.execute(
            update(Team)
            .where(Team.id == team.id)
            .values(
                name=name,
                tenant_id=tenant_id or team.tenant_id,
                group_id=group_id or team.group_id,
                updated_at=now,
            )
            .returning(*Team.__table__.c)
        )
    return team_out(team)


async def upsert_channel(
    uow: UnitOfWork,
    *,
    team_id: str,
    channel_id: str,
    name: str,
    membership_type: MembershipType = MembershipType.STANDARD,
) -> tuple[ChannelOut, str | None]:
    """Create the channel in its team, or rename it and update its membership type; with the
    channel, the name it had before when this renamed it."""
    require_text("channelId", channel_id)
    require_text("name", name)
    team = await team_by_teams_id(uow, team_id)
    if team is None:
        raise NotFound(f"Team '{team_id}' is not known; add the team first.")
    # Held to commit, so the first sight of a channel also sets it up once (`bot.workspace`).
    await uow.hold(f"channel {channel_id}")
    now = uow.clock.now()
    channel = await channel_by_teams_id(uow, channel_id)
    renamed_from = None
    if channel is None:
        [channel] = await uow.execute(
            insert(Channel)
            .values(
                id=new_id(),
                team_id=team.id,
                teams_id=channel_id,
                name=name,
                membership_type=membership_type.value,
                created_at=now,
                updated_at=now,
            )
            .returning(*Channel.__table__.c)
        )
    elif channel.team_id != team.id:
        raise Conflict(f"Channel '{channel_id}' belongs to another team.")
    else:
        if channel.name != name:
            renamed_from = channel.name
        [channel] = await uow.execute(
            update(Channel)
            .where(Channel.id == channel.id)
            .values(
                name=name,
                membership_type=membership_type.value,
                deleted_at=None,  # recorded again: restored in Teams
                updated_at=now,
            )
            .returning(*Channel.__table__.c)
        )
    return channel_out(channel, team), renamed_from


async def mark_channel_deleted(uow: UnitOfWork, *, team_id: str, channel_id: str) -> None:
    """Teams deleted the channel: requests naming it are refused; its items are kept."""
    team = await require_team(uow, team_id)
    channel = await channel_by_teams_id(uow, channel_id)
    if channel is None or channel.team_id != team.id:
        return  # never recorded here: nothing to keep
    now = uow.clock.now()
    await uow.execute(
        update(Channel).where(Channel.id == channel.id).values(deleted_at=now, updated_at=now)
    )


async def describe_channel(uow: UnitOfWork, *, scope: ChannelScope) -> tuple[TeamOut, ChannelOut]:
    team = await uow.row(select(Team).where(Team.id == scope.team_id))
    channel = await uow.row(select(Channel).where(Channel.id == scope.channel_id))
    if team is None or channel is None:
        raise NotFound("The channel no longer exists.")
    return team_out(team), channel_out(channel, team)


async def tenant_has_team(uow: UnitOfWork, *, tenant_id: str) -> bool:
    """Whether any team of the tenant is installed (SSO's default tenant rule)."""
    found = await uow.value(select(Team.id).where(Team.tenant_id == tenant_id).limit(1))
    return found is not None


async def named_channel(uow: UnitOfWork, *, team_id: str, channel_id: str) -> ChannelScope:
    """The scope of a channel named by its and its team's Teams ids, for the admin CLI: no
    member to check (whoever runs it has the database), only that both are known together."""
    team = await require_team(uow, team_id)
    channel = await channel_by_teams_id(uow, channel_id)
    if channel is None or channel.team_id != team.id:
        raise NotFound(f"Channel '{channel_id}' is not a channel of team '{team_id}'.")
    return ChannelScope(
        team_id=team.id,
        teams_team_id=team.teams_id,
        channel_id=channel.id,
        teams_channel_id=channel.teams_id,
        group_id=team.group_id,
        tenant_id=team.tenant_id,
    )


async def note_unmentioned_message(uow: UnitOfWork, *, teams_team_id: str) -> None:
    """A channel message that does not @mention the app reached it: Teams delivers every channel
    message in this team, so replies in items' threads are kept without a mention."""
    await uow.execute(
        update(Team)
        .where(Team.teams_id == teams_team_id, Team.unmentioned_message_at.is_(None))
        .values(unmentioned_message_at=uow.clock.now())
    )


async def hears_unmentioned_messages(uow: UnitOfWork, *, team_id: str) -> bool:
    """Whether a channel message that does not mention the app ever reached it in the team."""
    seen = await uow.value(select(Team.unmentioned_message_at).where(Team.id == team_id))
    return seen is not None

"""Installation and roster sync: the team, its channels, its members, a reference per channel."""

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

from botbuilder.core import TurnContext
from botbuilder.core.teams import TeamsInfo
from botbuilder.schema.teams import TeamsChannelAccount
from sqlalchemy import Table, bindparam, delete, select

from bot import workspace
from bot.db.statements import Prepared
from bot.db.tables import RosterSync, Team, TeamMember, User
from bot.db.uow import UnitOfWork
from bot.db.upserts import insert_or_replace
from bot.directory.schemas import ChannelOut
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, remove_member, upsert_user
from bot.discussions import chats
from bot.errors import DomainError
from bot.events import notification_rules
from bot.teams.outbound import conversation_references
from bot.teams.transport import connector_threads

log = logging.getLogger(__name__)

GENERAL = "General"  # Teams gives the General channel no name
MEMBERS_PAGE_SIZE = 500  # the paged member API's maximum
# Teams announces one install twice, moments apart: a second announcement within this finds
# the roster just synced; a reinstall later syncs again.
ONE_INSTALL = timedelta(minutes=1)

_SYNCS = cast(Table, RosterSync.__table__)
# One statement decides which announcement syncs, however they race: the row is taken (or
# retaken once older than ONE_INSTALL) by one of them alone.
_CLAIM_SYNC = Prepared(
    insert_or_replace(
        _SYNCS,
        key=["team_id"],
        replaced=["synced_at"],
        where=_SYNCS.c.synced_at < bindparam("cutoff"),
    )
    .values(team_id=bindparam("team_id"), synced_at=bindparam("now"))
    .returning(_SYNCS.c.team_id)
)
_RELEASE_SYNC = Prepared(delete(_SYNCS).where(_SYNCS.c.team_id == bindparam("team_id")))


@dataclass(frozen=True, slots=True)
class RosterMember:
    object_id: str
    username: str
    display_name: str
    email: str | None


@dataclass
class TeamRoster:
    """Everything Teams says about a team, fetched before any transaction opens."""

    team_id: str
    name: str
    tenant_id: str | None
    group_id: str | None
    channels: list[tuple[str, str]] = field(default_factory=list)  # (thread id, name)
    members: list[RosterMember] = field(default_factory=list)


def roster_member(account: TeamsChannelAccount) -> RosterMember | None:
    """A Teams account as a directory user; None for accounts without an Entra identity."""
    username = account.user_principal_name or account.email
    if not account.aad_object_id or not username or "@" not in username:
        return None
    return RosterMember(
        object_id=account.aad_object_id,
        username=username,
        display_name=account.name or username,
        email=account.email,
    )


async def fetch_roster(
    turn_context: TurnContext, *, team_id: str, tenant_id: str | None
) -> TeamRoster:
    """Team details, channels and every member (following the paged API's continuation)."""
    # botbuilder 4.17's Teams client is synchronous (blocking `requests`): run it off the loop,
    # in the connector's own threads, bounded like every call to Teams.
    threads = connector_threads.of_turn(turn_context)
    client = threads.bound_teams(await TeamsInfo.get_teams_connector_client(turn_context))
    details = await threads.run(client.teams.get_team_details, team_id)
    channels = (await threads.run(client.teams.get_teams_channels, team_id)).conversations
    roster = TeamRoster(
        team_id=team_id,
        name=details.name or team_id,
        tenant_id=tenant_id,
        group_id=details.aad_group_id,
        channels=[(channel.id, channel.name or GENERAL) for channel in channels],
    )
    token: str | None = None
    while True:
        page = await TeamsInfo.get_paged_team_members(
            turn_context, team_id, token, MEMBERS_PAGE_SIZE
        )
        roster.members.extend(member for member in map(roster_member, page.members or []) if member)
        token = page.continuation_token
        if not token:
            return roster


async def claim_install(uow: UnitOfWork, *, team_id: str) -> bool:
    """Whether this announcement of an install is the one that syncs the roster and greets the
    team (Teams sends an installationUpdate and a conversationUpdate adding the bot)."""
    now = uow.clock.now()
    values = {"team_id": team_id, "now": now, "cutoff": now - ONE_INSTALL}
    return bool(await uow.execute(_CLAIM_SYNC, values))


async def release_install(uow: UnitOfWork, *, team_id: str) -> None:
    """The sync failed: the install's other announcement (or a retry) may sync instead."""
    await uow.execute(_RELEASE_SYNC, {"team_id": team_id})


async def record_team(
    uow: UnitOfWork, *, roster: TeamRoster, turn_reference: dict[str, Any]
) -> None:
    """Record the team as Teams has it now: channels added, members added and removed; each
    channel without a Notification rule (new, or from before there were default rules) gets
    the default rules, switched off."""
    await upsert_team(
        uow,
        team_id=roster.team_id,
        name=roster.name,
        tenant_id=roster.tenant_id,
        group_id=roster.group_id,
    )
    recorded = []
    for channel_id, name in roster.channels:
        channel = await workspace.add_channel(
            uow, team_id=roster.team_id, channel_id=channel_id, name=name
        )
        await _keep_reference(uow, channel, turn_reference)
        recorded.append(channel.id)
    # Each channel's lock is held since it was recorded: a racing sync waits, then finds them.
    await notification_rules.add_default_rules(uow, channel_ids=recorded)
    await record_members(uow, team_id=roster.team_id, members=roster.members)
    present = {member.object_id for member in roster.members}
    for object_id in await _member_object_ids(uow, roster.team_id) - present:
        await remove_member(uow, team_id=roster.team_id, user_ref=object_id)


async def record_channel(
    uow: UnitOfWork,
    *,
    team_id: str,
    channel_id: str,
    name: str,
    turn_reference: dict[str, Any],
    created: bool = False,
) -> None:
    """A new, renamed or restored channel, with its bootstrap the first time and its reference;
    one Teams reports `created` gets the default rules unless it has Notification rules."""
    channel = await workspace.add_channel(uow, team_id=team_id, channel_id=channel_id, name=name)
    await _keep_reference(uow, channel, turn_reference)
    if created:
        await notification_rules.add_default_rules(uow, channel_ids=[channel.id])


async def _keep_reference(uow: UnitOfWork, channel: ChannelOut, turn: dict[str, Any]) -> None:
    reference = conversation_references.channel_reference(turn, channel_id=channel.channel_id)
    await conversation_references.save(uow, reference=reference, channel_ref=channel.id)


async def record_members(uow: UnitOfWork, *, team_id: str, members: list[RosterMember]) -> None:
    """Add the members (users created or updated); one unusable account does not stop the rest."""
    # Each member's locks are held to commit (`upsert_user`): taken in one order by every sync,
    # two syncs sharing members never wait for each other.
    for member in sorted(members, key=lambda member: member.object_id):
        try:
            user = await upsert_user(
                uow,
                source_id=member.object_id,
                username=member.username,
                display_name=member.display_name,
                email=member.email,
            )
        except DomainError as exc:
            log.warning("roster of %s: skipped member %s: %s", team_id, member.object_id, exc)
            continue
        await add_member(uow, team_id=team_id, user_ref=user.id)
    # Someone who added the app in their personal scope before any roster named them.
    await chats.claim_waiting(uow, object_ids=[member.object_id for member in members])


async def remove_members(uow: UnitOfWork, *, team_id: str, object_ids: list[str]) -> None:
    """End the memberships; people never recorded are ignored."""
    known = await _member_object_ids(uow, team_id)
    for object_id in object_ids:
        if object_id in known:
            await remove_member(uow, team_id=team_id, user_ref=object_id)


async def is_recorded(uow: UnitOfWork, *, team_id: str) -> bool:
    return await uow.value(select(Team.id).where(Team.teams_id == team_id)) is not None


async def _member_object_ids(uow: UnitOfWork, team_id: str) -> set[str]:
    return set(
        await uow.values(
            select(User.source_id)
            .join(TeamMember, TeamMember.user_id == User.id)
            .join(Team, Team.id == TeamMember.team_id)
            .where(Team.teams_id == team_id)
        )
    )

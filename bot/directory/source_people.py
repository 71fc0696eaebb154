"""How users are known at the external sources (each user's `mapping` array): listed with the
team's members, set by hand by a team member, and kept by the sync engine when it matches a
source user to a member."""

from collections.abc import Collection, Sequence
from typing import cast

from sqlalchemy import Table, delete, select, tuple_

from bot.db.statements import Row
from bot.db.tables import TeamMember, UserMapping
from bot.db.uow import UnitOfWork
from bot.db.upserts import insert_unless_present
from bot.directory.schemas import MemberOut, UserMappingIn, UserMappingOut
from bot.directory.users import find_user, user_out
from bot.errors import Conflict, Invalid, NotFound
from bot.ids import new_id

_MAPPINGS = cast(Table, UserMapping.__table__)


def host_key(hostname: str) -> str:
    """A source's address as mappings compare it: `https://Dev.Azure.com/Org/` is the same."""
    return hostname.strip().rstrip("/").casefold()


def mapping_out(row: Row) -> UserMappingOut:
    return UserMappingOut(
        id=row.id,
        source=row.source,
        local_id=row.user_id,
        display_name=row.display_name,
        source_id=row.source_user_id,
        email=row.email,
        username=row.username,
        project_hostname=row.project_hostname,
    )


async def mappings_of(
    uow: UnitOfWork, user_ids: Collection[str]
) -> dict[str, list[UserMappingOut]]:
    rows = await uow.rows(
        select(UserMapping)
        .where(UserMapping.user_id.in_(list(user_ids)))
        .order_by(UserMapping.created_at, UserMapping.id)
    )
    found: dict[str, list[UserMappingOut]] = {user_id: [] for user_id in user_ids}
    for row in rows:
        found[row.user_id].append(mapping_out(row))
    return found


async def set_mappings(
    uow: UnitOfWork, *, user_ref: str, entries: Sequence[UserMappingIn]
) -> MemberOut:
    """Replace the mapping array of a member of the channel's team (404 for anyone else)."""
    assert uow.channel is not None, "a user's mapping is set in a channel"
    user = await find_user(uow, ref=user_ref)
    member = select(TeamMember.user_id).where(
        TeamMember.team_id == uow.channel.team_id, TeamMember.user_id == user.id
    )
    if await uow.value(member) is None:
        raise NotFound(f"User '{user_ref}' is not a member of this team.")
    keys = [(e.source, host_key(e.project_hostname), e.source_id) for e in entries]
    if len(set(keys)) < len(keys):
        raise Invalid("mapping", "names the same source user twice")
    # A racing request for the same source user waits here, then sees this one's rows.
    await uow.hold(*(f"user mapping {' '.join(key)}" for key in keys))
    if keys:
        columns = (UserMapping.source, UserMapping.project_hostname, UserMapping.source_user_id)
        taken = await uow.rows(
            select(UserMapping.source_user_id, UserMapping.user_id).where(
                tuple_(*columns).in_(keys), UserMapping.user_id != user.id
            )
        )
        if taken:
            raise Conflict(
                f"Source user '{taken[0]['source_user_id']}' is matched to another user."
            )
    await uow.execute(delete(UserMapping).where(UserMapping.user_id == user.id))
    now = uow.clock.now()
    rows = [
        {
            "id": new_id(),
            "user_id": user.id,
            "source": source,
            "project_hostname": host,
            "source_user_id": source_id,
            "display_name": entry.display_name or user.display_name,
            "email": entry.email,
            "username": entry.username,
            "created_at": now,
        }
        for (source, host, source_id), entry in zip(keys, entries, strict=True)
    ]
    if rows:
        await uow.insert_many(_MAPPINGS, rows, {})
    mapping = (await mappings_of(uow, [user.id]))[user.id]
    return MemberOut.model_validate({**user_out(user).model_dump(), "mapping": mapping})


async def keep_match(
    uow: UnitOfWork,
    *,
    user_id: str,
    source: str,
    hostname: str,
    source_user_id: str,
    display_name: str,
    email: str | None,
) -> None:
    """Keep a match the sync engine made (a source user it found a member for); a source user
    already matched keeps their first match."""
    await uow.execute(
        insert_unless_present(_MAPPINGS, key=("source", "project_hostname", "source_user_id")),
        {
            "id": new_id(),
            "user_id": user_id,
            "source": source,
            "project_hostname": host_key(hostname),
            "source_user_id": source_user_id,
            "display_name": display_name,
            "email": email,
            "username": None,
            "created_at": uow.clock.now(),
        },
    )


async def known_at(uow: UnitOfWork, *, team_id: str, source: str, hostname: str) -> list[Row]:
    """The team's members' mappings for one source address."""
    return await uow.rows(
        select(UserMapping)
        .join(TeamMember, TeamMember.user_id == UserMapping.user_id)
        .where(
            TeamMember.team_id == team_id,
            UserMapping.source == source,
            UserMapping.project_hostname == host_key(hostname),
        )
    )

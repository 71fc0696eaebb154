"""Users and their team memberships: users recorded by Entra object id (by the admin CLI, SSO and
roster sync) with unique UPNs, found by any reference docs/api.md allows, made members of a
team or removed, and listed as a team's members."""

from collections.abc import Mapping
from typing import Any

from sqlalchemy import delete, insert, or_, select, update

from bot.db.statements import Row
from bot.db.tables import TeamMember, User
from bot.db.uow import ChannelScope, UnitOfWork
from bot.directory.schemas import USER_SOURCE, MembershipOut, UserOut
from bot.directory.shared import one_or_none, require_team, require_text
from bot.errors import Conflict, Invalid, NotFound
from bot.ids import is_id, new_id
from bot.odata.query import Query, apply, count_statement, page


def user_out(user: Row) -> UserOut:
    return UserOut(
        id=user.id,
        source_id=user.source_id,
        display_name=user.display_name,
        email=user.email,
        username=user.username,
        source=user.source,
    )


async def upsert_user(
    uow: UnitOfWork,
    *,
    source_id: str,
    username: str,
    display_name: str,
    email: str | None = None,
) -> UserOut:
    """Create or update a user, unique by Entra object id; UPNs must stay unique too."""
    require_text("id", source_id, limit=64)
    require_text("username", username)
    if "@" not in username:
        raise Invalid("username", "a user principal name looks like user@domain")
    require_text("displayName", display_name)
    username = username.strip().lower()
    # Both keys held until commit: a sign-in from another tab, or another user taking this
    # UPN, checks after this one's insert and finds it (no unique violation).
    await uow.hold(f"user {source_id}", f"username {username}")
    now = uow.clock.now()
    user = await one_or_none(uow, select(User).where(User.source_id == source_id))
    holder = await one_or_none(uow, select(User).where(User.username == username))
    if holder is not None and (user is None or holder.id != user.id):
        raise Conflict(f"Username '{username}' belongs to another user.")
    if user is None:
        [user] = await uow.execute(
            insert(User)
            .values(
                id=new_id(),
                source_id=source_id,
                username=username,
                display_name=display_name,
                email=email or None,
                source=USER_SOURCE,
                created_at=now,
                updated_at=now,
            )
            .returning(*User.__table__.c)
        )
    else:
        [user] = await uow.execute(
            update(User)
            .where(User.id == user.id)
            .values(
                username=username,
                display_name=display_name,
                email=email or user.email,
                updated_at=now,
            )
            .returning(*User.__table__.c)
        )
    return user_out(user)


async def find_user(uow: UnitOfWork, *, ref: str) -> Row:
    """A user by `_id`, else Entra object id, else UPN or email (docs/api.md, Bugs and tasks)."""
    for condition in _user_lookups(ref):
        user = await one_or_none(uow, select(User).where(condition).limit(1))
        if user is not None:
            return user
    raise NotFound(f"User '{ref}' is not known.")


def _user_lookups(ref: str) -> list:
    ref = ref.strip()
    lookups = [User.source_id == ref, or_(User.username == ref.lower(), User.email == ref)]
    return [User.id == ref, *lookups] if is_id(ref) else lookups


async def add_member(uow: UnitOfWork, *, team_id: str, user_ref: str) -> MembershipOut:
    """Make the user a member of the team (no change if already one)."""
    team = await require_team(uow, team_id)
    user = await find_user(uow, ref=user_ref)
    await uow.hold(f"member {team.id} {user.id}")  # a racing add waits, then sees it
    member = select(TeamMember.user_id).where(
        TeamMember.team_id == team.id, TeamMember.user_id == user.id
    )
    if await uow.value(member) is None:
        await uow.execute(
            insert(TeamMember).values(team_id=team.id, user_id=user.id, created_at=uow.clock.now())
        )
    return MembershipOut(team_id=team.teams_id, user=user_out(user), member=True)


async def remove_member(uow: UnitOfWork, *, team_id: str, user_ref: str) -> MembershipOut:
    """End the user's membership of the team (no change if not a member)."""
    team = await require_team(uow, team_id)
    user = await find_user(uow, ref=user_ref)
    await uow.execute(
        delete(TeamMember).where(TeamMember.team_id == team.id, TeamMember.user_id == user.id)
    )
    return MembershipOut(team_id=team.teams_id, user=user_out(user), member=False)


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
    rows, more = page(await uow.rows(apply(statement, query, keyed=True)), query)
    count = await uow.value(count_statement(statement, query)) if query.count else None
    members = [UserOut.model_validate(dict(row)) for row in rows]
    return members, count, dict(rows[-1]) if more else None


async def list_team_members(uow: UnitOfWork, *, scope: ChannelScope) -> list[UserOut]:
    """The members of the scope's team, by name: whom a form may assign."""
    users = await uow.rows(
        select(User)
        .join(TeamMember, TeamMember.user_id == User.id)
        .where(TeamMember.team_id == scope.team_id)
        .order_by(User.display_name, User.id)
    )
    return [user_out(user) for user in users]

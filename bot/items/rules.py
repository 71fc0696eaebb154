"""Rules every item change obeys, whether it comes from create, PATCH, bulk edit or the bot."""

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import select

from bot.db.expressions import one_of
from bot.db.statements import Row
from bot.db.tables import TeamMember
from bot.db.uow import UnitOfWork
from bot.directory.users import find_user
from bot.errors import Invalid, NotFound
from bot.items.schemas import AssigneeRef


def check_dates(start: datetime | None, due: datetime | None) -> None:
    if not dates_consistent(start, due):
        raise Invalid(
            "dueDate",
            "must not be before startDate",
            label="Due date",
            why_said="must not be before the Start date",
        )


def dates_consistent(start: datetime | None, due: datetime | None) -> bool:
    """The date rule: an item is never due before it starts."""
    return start is None or due is None or due >= start


def completed_date(
    *,
    done_before: bool,
    done_after: bool,
    current: datetime | None,
    given: datetime | None,
    given_explicitly: bool,
    now: datetime,
) -> datetime | None:
    """The Done-category rule: filled on moving into Done, cleared on moving out, unless given."""
    if given_explicitly:
        return given
    if done_after and not done_before:
        return now
    if done_before and not done_after:
        return None
    return current


async def resolve_assignees(
    uow: UnitOfWork, *, refs: list[AssigneeRef | str], kept: Collection[str] = ()
) -> list[Row]:
    """Users named by the refs, each a member of the request's team, in order, once each. The
    users in `kept` (ids of those assigned already) may stay after leaving the team: an edit that
    sends the assignees back as they were must not fail because one of them has left."""
    assert uow.channel is not None
    users: dict[str, str] = {}  # user id → the reference that named it
    found: list[Row] = []
    for ref in refs:
        reference = ref if isinstance(ref, str) else ref.reference
        try:
            user = await find_user(uow, ref=reference)
        except NotFound:
            raise not_a_member(reference) from None
        if user.id not in users:
            users[user.id] = reference
            found.append(user)
    if users:
        members = set(
            await uow.values(
                select(TeamMember.user_id).where(
                    TeamMember.team_id == uow.channel.team_id, one_of(TeamMember.user_id, users)
                )
            )
        )
        for user_id, reference in users.items():
            if user_id not in members and user_id not in kept:
                raise not_a_member(reference)
    return found


def not_a_member(reference: str) -> Invalid:
    """The refusal of an assignee, naming only what the caller sent: a user outside the team
    (another tenant's, maybe) is never named, nor told apart from one who does not exist."""
    return Invalid("assignedTo", f"'{reference}' is not a member of this team")

"""What the directory's writers share: a team or channel found by its Teams id (or a team that
must exist), one row or none, and the check that a required text is given and fits its column."""

from sqlalchemy import select

from bot.db.statements import AnySelect, Row
from bot.db.tables import Channel, Team
from bot.db.uow import UnitOfWork
from bot.errors import Invalid, NotFound


async def require_team(uow: UnitOfWork, team_id: str) -> Row:
    team = await team_by_teams_id(uow, team_id)
    if team is None:
        raise NotFound(f"Team '{team_id}' is not known.")
    return team


async def team_by_teams_id(uow: UnitOfWork, team_id: str) -> Row | None:
    return await one_or_none(uow, select(Team).where(Team.teams_id == team_id))


async def channel_by_teams_id(uow: UnitOfWork, channel_id: str) -> Row | None:
    return await one_or_none(uow, select(Channel).where(Channel.teams_id == channel_id))


async def one_or_none(uow: UnitOfWork, statement: AnySelect) -> Row | None:
    return await uow.row(statement)


def require_text(field: str, value: str | None, limit: int = 255) -> None:
    if not value or not value.strip():
        raise Invalid(field, "must not be empty")
    if len(value) > limit:
        raise Invalid(field, f"must be at most {limit} characters")

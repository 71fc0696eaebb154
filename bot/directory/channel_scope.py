"""A channel's scope read by its id, for background work that acts in the channel as a
request would (a request's scope comes from its context: `bot.directory.access`)."""

from sqlalchemy import bindparam, select

from bot.db.statements import Prepared
from bot.db.tables import Channel, Team
from bot.db.uow import ChannelScope, UnitOfWork
from bot.jobs.worker import PermanentFailure

_SCOPE = Prepared(
    select(
        Channel.team_id,
        Team.teams_id.label("teams_team_id"),
        Channel.id.label("channel_id"),
        Channel.teams_id.label("teams_channel_id"),
        Team.group_id,
        Team.tenant_id,
    )
    .join(Team, Team.id == Channel.team_id)
    .where(Channel.id == bindparam("channel"))
)


async def scope_of_channel(uow: UnitOfWork, *, channel_id: str) -> ChannelScope:
    """A channel's scope, for background work that acts in it as a request would."""
    row = await uow.row(_SCOPE, {"channel": channel_id})
    if row is None:
        raise PermanentFailure(f"Channel '{channel_id}' no longer exists.")
    return ChannelScope(**row)

"""Setting a channel up for work: its directory row, its native project, its default fields."""

from typing import cast

from sqlalchemy import Table, select

from bot.db.tables import ItemCounter, Project
from bot.db.uow import UnitOfWork
from bot.directory.schemas import ChannelOut, MembershipType
from bot.directory.teams import upsert_channel
from bot.fields import service as fields
from bot.projects import service as projects
from bot.schemas import ItemKind


async def add_channel(
    uow: UnitOfWork,
    *,
    team_id: str,
    channel_id: str,
    name: str,
    membership_type: MembershipType = MembershipType.STANDARD,
) -> ChannelOut:
    """Record the channel; the first time, give it its native project and default fields. A
    renamed channel renames its native project."""
    channel, renamed_from = await upsert_channel(
        uow, team_id=team_id, channel_id=channel_id, name=name, membership_type=membership_type
    )
    if renamed_from is not None:
        await projects.follow_channel_rename(uow, channel_id=channel.id, old=renamed_from, new=name)
    bootstrapped = await uow.value(
        select(Project.id).where(Project.channel_id == channel.id).limit(1)
    )
    if bootstrapped is None:
        await projects.add_native_project(
            uow, channel_id=channel.id, teams_channel_id=channel_id, name=name
        )
        await fields.add_channel_defaults(uow, channel_id=channel.id)
        counters = [{"kind": kind.value} for kind in ItemKind]
        same = {"channel_id": channel.id, "last_internal_id": 0, "version": 0}
        await uow.insert_many(cast(Table, ItemCounter.__table__), counters, same)
    return channel

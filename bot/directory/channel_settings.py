"""A channel's own settings: the due-soon window of its DUESOON events."""

from sqlalchemy import select, update

from bot.db.tables import Channel
from bot.db.uow import ChannelScope, UnitOfWork
from bot.directory.schemas import ChannelSettingsOut, ChannelSettingsPatch
from bot.errors import NotFound


async def read_settings(uow: UnitOfWork, *, default_minutes: int) -> ChannelSettingsOut:
    """The channel's settings, its window the installation's where it sets none."""
    minutes = await uow.rows(
        select(Channel.due_soon_minutes).where(Channel.id == _scope(uow).channel_id)
    )
    if not minutes:
        raise NotFound("The channel no longer exists.")
    return _out(minutes[0].due_soon_minutes, default_minutes)


async def update_settings(
    uow: UnitOfWork, *, patch: ChannelSettingsPatch, default_minutes: int
) -> ChannelSettingsOut:
    """Apply the fields sent; the window applies to due dates from the next sweep on."""
    statement = update(Channel).where(Channel.id == _scope(uow).channel_id)
    if "due_soon_minutes" in patch.model_fields_set:
        statement = statement.values(due_soon_minutes=patch.due_soon_minutes)
    else:
        statement = statement.values(due_soon_minutes=Channel.due_soon_minutes)
    changed = await uow.execute(statement.returning(Channel.due_soon_minutes))
    if not changed:
        raise NotFound("The channel no longer exists.")
    return _out(changed[0].due_soon_minutes, default_minutes)


def _scope(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "a channel's unit of work"
    return uow.channel


def _out(minutes: int | None, default_minutes: int) -> ChannelSettingsOut:
    return ChannelSettingsOut(
        due_soon_minutes=minutes if minutes is not None else default_minutes,
        due_soon_is_default=minutes is None,
    )

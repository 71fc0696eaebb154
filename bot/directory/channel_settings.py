"""A channel's own settings: the due-soon window of its DUESOON events, and how much its
notifications may say at once (a digest window and threshold, quiet hours). Each is None in the
database while the channel follows the installation's setting (or, for quiet hours, has none)."""

from typing import Any

from sqlalchemy import null, select, update

from bot.db.statements import Row
from bot.db.tables import Channel
from bot.db.uow import ChannelScope, UnitOfWork
from bot.directory.schemas import ChannelSettingsOut, ChannelSettingsPatch, QuietHours
from bot.errors import NotFound
from bot.settings import Settings

# The patch's fields are the columns' names.
_COLUMNS = (
    Channel.due_soon_minutes,
    Channel.digest_window_seconds,
    Channel.digest_threshold,
    Channel.quiet_hours,
)


async def read_settings(uow: UnitOfWork, *, settings: Settings) -> ChannelSettingsOut:
    """The channel's settings, the installation's where it sets none."""
    rows = await uow.rows(select(*_COLUMNS).where(Channel.id == _scope(uow).channel_id))
    if not rows:
        raise NotFound("The channel no longer exists.")
    return _out(rows[0], settings)


async def update_settings(
    uow: UnitOfWork, *, patch: ChannelSettingsPatch, settings: Settings
) -> ChannelSettingsOut:
    """Apply the fields sent; the due-soon window applies to due dates from the next sweep on,
    the rest to the next notifications."""
    if not patch.model_fields_set:
        return await read_settings(uow, settings=settings)
    values: dict[str, Any] = {name: getattr(patch, name) for name in patch.model_fields_set}
    if "quiet_hours" in values:
        quiet = values["quiet_hours"]
        # SQL NULL, not JSON null: "none" reads the same in SQL as in Python.
        values["quiet_hours"] = null() if quiet is None else quiet.model_dump(by_alias=True)
    changed = await uow.execute(
        update(Channel)
        .where(Channel.id == _scope(uow).channel_id)
        .values(values)
        .returning(*_COLUMNS)
    )
    if not changed:
        raise NotFound("The channel no longer exists.")
    return _out(changed[0], settings)


def _scope(uow: UnitOfWork) -> ChannelScope:
    assert uow.channel is not None, "a channel's unit of work"
    return uow.channel


def _out(row: Row, settings: Settings) -> ChannelSettingsOut:
    minutes, window, threshold = (
        row.due_soon_minutes,
        row.digest_window_seconds,
        row.digest_threshold,
    )
    quiet = row.quiet_hours
    return ChannelSettingsOut(
        due_soon_minutes=settings.due_soon_minutes if minutes is None else minutes,
        due_soon_is_default=minutes is None,
        digest_window_seconds=settings.notify_digest_seconds if window is None else window,
        digest_window_is_default=window is None,
        digest_threshold=settings.notify_digest_threshold if threshold is None else threshold,
        digest_threshold_is_default=threshold is None,
        quiet_hours=None if quiet is None else QuietHours.model_validate(quiet),
        quiet_hours_is_default=quiet is None,
    )

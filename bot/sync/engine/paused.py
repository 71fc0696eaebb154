"""A source that refuses the credentials (401/403) pauses its project's sync: nothing is sent
until new credentials are saved, and the channel is told once, in the same transaction, by a
card naming the project and what to do (`told_paused`, cleared when new credentials resume it)."""

from sqlalchemy import select

from bot.db.statements import Row
from bot.db.tables import Channel, Project
from bot.db.uow import UnitOfWork
from bot.messaging import Messenger, SyncPaused
from bot.sync import links, log
from bot.sync_records.schemas import SyncState
from bot.timestamps import format_timestamp

CODE = "Unauthorized"  # the `lastError` code of a paused sync


async def pause(uow: UnitOfWork, row: Row, *, reason: str, messenger: Messenger) -> None:
    """`row` (held for update) paused with `reason`; the log and the channel told unless told."""
    before = dict(row)
    row["state"] = SyncState.PAUSED.value
    row["last_error"] = {"code": CODE, "message": reason, "at": format_timestamp(uow.clock.now())}
    told = row.told_paused
    row["told_paused"] = True
    await links.write(uow, row, before)
    if told:
        return
    found = await uow.row(
        select(Project.display_name, Project.source, Channel.teams_id)
        .join(Channel, Channel.id == Project.channel_id)
        .where(Project.id == row.project_id)
    )
    assert found is not None, "a project's sync row lives as long as the project"
    await log.write(
        uow,
        project_id=row.project_id,
        level=log.ERROR,
        message=f"Paused: {found['source']} refused the credentials ({reason}). "
        "Save new credentials on the project to resume.",
    )
    said = SyncPaused(
        project=found["display_name"],
        project_id=row.project_id,
        source=found["source"],
        reason=reason,
    )
    await messenger.post(uow, channel_id=found["teams_id"], said=said)

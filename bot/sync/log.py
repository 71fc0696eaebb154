"""The project's sync log: what the engine did and what went wrong, newest first; and its
counts. A line never holds a credential or a hook secret."""

from sqlalchemy import insert, select

from bot.db.tables import ProjectSync, SyncLogLine
from bot.db.uow import UnitOfWork
from bot.ids import new_id
from bot.sync.schemas import LOG_LINES, SyncLogOut

INFO, WARNING, ERROR = "info", "warning", "error"


async def write(
    uow: UnitOfWork,
    *,
    project_id: str,
    message: str,
    level: str = INFO,
    item_id: str | None = None,
    source_id: str | None = None,
) -> None:
    await uow.execute(
        insert(SyncLogLine).values(
            id=new_id(),
            project_id=project_id,
            at=uow.clock.now(),
            level=level,
            item_id=item_id,
            source_id=source_id,
            message=message[:2000],
        )
    )


def count(row: ProjectSync, name: str, by: int = 1) -> None:
    """Add to one of the project's counts (imported, pushed, pulled, conflicts, errors)."""
    if by:
        row.counts = {**row.counts, name: row.counts.get(name, 0) + by}


async def last_lines(uow: UnitOfWork, *, project_id: str) -> list[SyncLogOut]:
    rows = await uow.rows(
        select(
            SyncLogLine.at,
            SyncLogLine.level,
            SyncLogLine.item_id,
            SyncLogLine.source_id,
            SyncLogLine.message,
        )
        .where(SyncLogLine.project_id == project_id)
        .order_by(SyncLogLine.at.desc(), SyncLogLine.id.desc())
        .limit(LOG_LINES)
    )
    return [SyncLogOut.model_validate(dict(row)) for row in rows]

"""The project's sync log: what the engine did and what went wrong, newest first, its last
`KEPT` lines kept (each poll trims it); and its counts. A line never holds a credential or a hook
secret."""

from typing import cast

from sqlalchemy import Table, and_, delete, or_, select

from bot.db.statements import Row
from bot.db.tables import SyncLogLine
from bot.db.uow import UnitOfWork
from bot.ids import new_id
from bot.sync_records.schemas import LOG_LINES, SyncLogOut

INFO, WARNING, ERROR = "info", "warning", "error"
KEPT = 1000  # lines per project (the API shows the last LOG_LINES)
_LINES = cast(Table, SyncLogLine.__table__)


async def write(
    uow: UnitOfWork,
    *,
    project_id: str,
    message: str,
    level: str = INFO,
    item_id: str | None = None,
    source_id: str | None = None,
) -> None:
    line = {
        "id": new_id(),
        "project_id": project_id,
        "at": uow.clock.now(),
        "level": level,
        "item_id": item_id,
        "source_id": source_id,
        "message": message[:2000],
    }
    # Into the table, every column given: a line per item sent or read, and the ORM's insert
    # coerces its values and keys its statement anew each time.
    await uow.insert_many(_LINES, [line], {})


def count(row: Row, name: str, by: int = 1) -> None:
    """Add to one of the project's counts (imported, pushed, pulled, conflicts, errors) in its
    sync row (`bot.sync.links.write` stores it)."""
    if by:
        row["counts"] = {**row.counts, name: row.counts.get(name, 0) + by}


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


async def trim(uow: UnitOfWork, *, project_id: str) -> None:
    """Only the project's newest `KEPT` lines kept."""
    first_gone = await uow.row(
        select(SyncLogLine.at, SyncLogLine.id)
        .where(SyncLogLine.project_id == project_id)
        .order_by(SyncLogLine.at.desc(), SyncLogLine.id.desc())
        .offset(KEPT)
        .limit(1)
    )
    if first_gone is None:
        return
    at, line_id = first_gone["at"], first_gone["id"]
    await uow.execute(
        delete(SyncLogLine).where(
            SyncLogLine.project_id == project_id,
            or_(SyncLogLine.at < at, and_(SyncLogLine.at == at, SyncLogLine.id <= line_id)),
        )
    )

"""What an UPDATE must write of a row read, changed in place, and written back."""

from collections.abc import Mapping
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm import InstrumentedAttribute

from bot.db.uow import UnitOfWork


def _changed(row: Mapping[str, Any], before: Mapping[str, Any]) -> dict[str, Any]:
    """The columns of `row` whose values differ from what it held `before`: the ones a change
    wrote, and none it left as they were (a row unchanged needs no UPDATE)."""
    return {name: value for name, value in row.items() if before[name] != value}


async def write_changes(
    uow: UnitOfWork,
    key: InstrumentedAttribute[Any],
    row: Mapping[str, Any],
    before: Mapping[str, Any],
) -> dict[str, Any]:
    """Write the columns of `row` changed since `before` to the one row whose `key` column holds
    `row`'s value; what was written (nothing, and no statement, when nothing changed)."""
    if written := _changed(row, before):
        await uow.execute(update(key.class_).where(key == row[key.key]).values(written))
    return written

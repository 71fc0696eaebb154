"""What an item's `sync` adds for synced items: the source's code and message when it refused
the item, and the source's people no team member matched."""

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from bot.db.tables import SyncRecord
from bot.db.uow import UnitOfWork


async def problems(uow: UnitOfWork, item_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Per synced item with something to say: `code`, `message` and `unmatched` (each left out
    when empty)."""
    if not item_ids:
        return {}
    rows = await uow.rows(
        select(SyncRecord.item_id, SyncRecord.code, SyncRecord.message, SyncRecord.unmatched).where(
            SyncRecord.item_id.in_(list(item_ids))
        )
    )
    said: dict[str, dict[str, Any]] = {}
    for row in rows:
        extra = {name: row[name] for name in ("code", "message", "unmatched") if row[name]}
        if extra:
            said[row["item_id"]] = extra
    return said


async def source_state(uow: UnitOfWork, item_id: str) -> str | None:
    """The state the item was last seen in at its source (the one no mapping may take)."""
    seen = await uow.value(select(SyncRecord.seen).where(SyncRecord.item_id == item_id))
    state = (seen or {}).get("state")
    return str(state) if state is not None else None

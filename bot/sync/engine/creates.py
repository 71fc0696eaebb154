"""A create whose answer was lost (a 5xx once it was made, a hang, a crash) is looked for at the
source before it is sent again: Azure DevOps takes no idempotency key. The engine notes when it
first sent the create (`seen_at`, empty until the item exists there) and, sending it again,
adopts an item of that type and title made there since, that nothing here is linked to."""

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select, update

from bot.db.statements import Row
from bot.db.tables import Item, SyncRecord
from bot.db.uow import UnitOfWork
from bot.schemas import ItemKind
from bot.sync.source import SourceItem

SLACK = timedelta(minutes=5)  # the clocks here and at the source may differ


def tried_at(record: Row) -> datetime | None:
    """When the item's create was first sent, or None (never sent, or created there)."""
    return record.seen_at if record.source_item_id is None else None


async def note_tried(uow: UnitOfWork, *, item_id: str) -> None:
    """Note, before the create goes out, that it is sent."""
    await uow.execute(
        update(SyncRecord)
        .where(
            SyncRecord.item_id == item_id,
            SyncRecord.source_item_id.is_(None),
            SyncRecord.seen_at.is_(None),
        )
        .values(seen_at=uow.clock.now())
    )


async def unlinked(
    uow: UnitOfWork, *, project_id: str, item_id: str, found: Sequence[SourceItem]
) -> SourceItem | None:
    """The first item found that no other item here is linked to."""
    if not found:
        return None
    linked = set(
        await uow.values(
            select(SyncRecord.source_item_id).where(
                SyncRecord.project_id == project_id,
                SyncRecord.source_item_id.in_([item.id for item in found]),
                SyncRecord.item_id != item_id,
            )
        )
    )
    return next((item for item in found if item.id not in linked), None)


async def any_lost(uow: UnitOfWork, *, project_id: str) -> bool:
    """Whether a create sent from here waits for its answer (`claim` may adopt an item a pull
    meets): a page with none writes its new items together."""
    waiting = await uow.value(
        select(SyncRecord.item_id)
        .where(
            SyncRecord.project_id == project_id,
            SyncRecord.source_item_id.is_(None),
            SyncRecord.seen_at.is_not(None),
        )
        .limit(1)
    )
    return waiting is not None


async def claim(
    uow: UnitOfWork, *, project_id: str, kind: ItemKind, source_item: SourceItem
) -> Row | None:
    """A pull meets an item it does not know: the record of a create sent from here whose
    answer was lost, when one of that kind and title waits, now linked to it."""
    record = await uow.row(
        select(SyncRecord)
        .join(Item, Item.id == SyncRecord.item_id)
        .where(
            SyncRecord.project_id == project_id,
            SyncRecord.source_item_id.is_(None),
            SyncRecord.seen_at.is_not(None),
            Item.kind == kind.value,
            Item.name == source_item.fields.title,
        )
        .order_by(SyncRecord.seen_at)
        .limit(1)
        .with_for_update()
    )
    if record is not None:
        record["source_item_id"] = source_item.id
        await uow.execute(
            update(SyncRecord)
            .where(SyncRecord.item_id == record.item_id)
            .values(source_item_id=source_item.id)
        )
        await uow.execute(
            update(Item).where(Item.id == record.item_id).values(source_id=source_item.id)
        )
    return record

"""Synced items shown `Invalid` because their source state had no mapping take their mapped
status once one is added, without a new pull (the state last seen at the source decides)."""

from sqlalchemy import select, update

from bot.db.tables import FieldMapping, FieldValue, Item, SyncRecord
from bot.db.uow import UnitOfWork
from bot.fields.catalog import STATUS
from bot.sync_records.schemas import ItemSyncStatus


async def remap(uow: UnitOfWork, *, channel_id: str, project_id: str | None = None) -> None:
    scope = [
        Item.channel_id == channel_id,
        Item.status_id.is_(None),
        Item.sync_status == ItemSyncStatus.MAPPING_NOTFOUND.value,
    ]
    if project_id is not None:
        scope.append(Item.project_id == project_id)
    waiting = await uow.rows(
        select(Item.id, Item.kind, Item.project_id, SyncRecord.seen)
        .join(SyncRecord, SyncRecord.item_id == Item.id)
        .where(*scope)
    )
    if not waiting:
        return
    mapped = await uow.rows(
        select(
            FieldMapping.project_id,
            FieldMapping.entity_type,
            FieldMapping.source_value_id,
            FieldValue.id,
            FieldValue.name,
        )
        .join(FieldValue, FieldValue.id == FieldMapping.field_id)
        .where(
            FieldMapping.channel_id == channel_id,
            FieldMapping.type == STATUS,
            FieldMapping.enable.is_(True),
        )
    )
    to = {
        (m["project_id"], m["entity_type"].lower(), m["source_value_id"]): (m["id"], m["name"])
        for m in mapped
    }
    now = uow.clock.now()
    for item in waiting:
        found = to.get((item["project_id"], item["kind"], (item["seen"] or {}).get("state")))
        if found is not None:
            await uow.execute(
                update(Item)
                .where(Item.id == item["id"])
                .values(status=found[1], status_id=found[0], sync_status=None, sync_at=now)
            )

"""Changes made here to items of a project that sends them: noted in the change's own
transaction (as events are), each item's changed fields kept dirty and a push job queued (the
sync engine, `bot/sync/engine/`, runs it). Changes that came from the source are never noted:
they do not go back out."""

from typing import Any, cast

from sqlalchemy import Table, bindparam, delete, select, update

from bot.db.statements import Prepared
from bot.db.tables import Item, ProjectSync, SyncRecord
from bot.db.uow import UnitOfWork
from bot.jobs.kinds import JobKind, Payload
from bot.schemas import Trigger
from bot.sync_records.schemas import Direction, ItemSyncStatus
from bot.timestamps import format_timestamp

# The item's fields by the API's name (as events carry them) → the source's (`SourceFields`).
FIELDS = {
    "name": "title",
    "body": "body",
    "status": "state",
    "priority": "priority",
    "severity": "severity",
    "assignedTo": "assignees",
    "startDate": "start_date",
    "dueDate": "due_date",
}


class ItemJob(Payload):
    project_id: str
    item_id: str


# One item's changes here, sent to the source (`bot.sync.engine.runner` runs it).
PUSH = JobKind("sync.push", ItemJob, max_attempts=1_000)

_RECORDS = cast(Table, SyncRecord.__table__)
_DIRTY = Prepared(
    update(SyncRecord)
    .where(SyncRecord.item_id == bindparam("key"))
    .values(dirty=bindparam("dirty", type_=SyncRecord.dirty.type))
)
# A record made by a change here: nothing known of the source's copy yet.
_NEW_RECORD: dict[str, Any] = {
    "source_item_id": None,
    "version": None,
    "seen": {},
    "seen_at": None,
    "code": None,
    "message": None,
    "unmatched": [],
    "deleted": False,
    "comment_count": None,
}


async def note(uow: UnitOfWork, *, trigger: Trigger, payloads: dict[str, dict[str, Any]]) -> None:
    if uow.from_source:
        return
    ids = list(payloads)
    now = format_timestamp(uow.clock.now())
    if trigger is Trigger.ITEM_DELETED:
        records = await uow.rows(
            select(SyncRecord.item_id, SyncRecord.project_id).where(
                SyncRecord.item_id.in_(ids), SyncRecord.deleted.is_(False)
            )
        )
        sending = await _sending({record.project_id for record in records}, uow)
        marked = [r.item_id for r in records if r.project_id in sending]
        # Sync off, or only reading: the source keeps its item.
        dropped = [r.item_id for r in records if r.project_id not in sending]
        if marked:
            await uow.execute(
                update(SyncRecord).where(SyncRecord.item_id.in_(marked)).values(deleted=True)
            )
        if dropped:
            await uow.execute(delete(SyncRecord).where(SyncRecord.item_id.in_(dropped)))
        jobs = [
            ItemJob(project_id=r.project_id, item_id=r.item_id)
            for r in records
            if r.project_id in sending
        ]
        if jobs:
            await PUSH.enqueue_many(uow, jobs)
        return
    rows = await uow.rows(
        select(Item.id, Item.project_id)
        .join(ProjectSync, ProjectSync.project_id == Item.project_id)
        .where(
            Item.id.in_(ids),
            ProjectSync.enabled.is_(True),
            ProjectSync.direction != Direction.IN.value,
        )
    )
    if not rows:
        return
    held = {
        r.item_id: r.dirty
        for r in await uow.rows(
            select(SyncRecord.item_id, SyncRecord.dirty).where(
                SyncRecord.item_id.in_([row["id"] for row in rows])
            )
        )
    }
    made, kept = [], []
    for row in rows:
        changed = [
            FIELDS[change["field"]]
            for change in payloads[row["id"]].get("changes", [])
            if change["field"] in FIELDS
        ]
        dirty = dict.fromkeys(changed, now)
        if row["id"] not in held:  # made here: created at the source by its push
            made.append({"item_id": row["id"], "project_id": row["project_id"], "dirty": dirty})
        elif (merged := {**held[row["id"]], **dirty}) != held[row["id"]]:
            kept.append({"key": row["id"], "dirty": merged})
    await uow.insert_many(_RECORDS, made, _NEW_RECORD)
    await uow.execute_many(_DIRTY, kept)
    await uow.execute(
        update(Item)
        .where(
            Item.id.in_([row["id"] for row in rows]),
            (Item.sync_status.is_(None))
            | Item.sync_status.in_(
                [ItemSyncStatus.SOURCE_ERROR.value, ItemSyncStatus.TRANSITION_NOTFOUND.value]
            ),
        )
        .values(sync_status=ItemSyncStatus.PENDING.value)
    )
    await PUSH.enqueue_many(
        uow, [ItemJob(project_id=row["project_id"], item_id=row["id"]) for row in rows]
    )


async def _sending(project_ids: set[str], uow: UnitOfWork) -> set[str]:
    """Those of the projects whose sync is on and sends changes out."""
    if not project_ids:
        return set()
    return set(
        await uow.values(
            select(ProjectSync.project_id).where(
                ProjectSync.project_id.in_(project_ids),
                ProjectSync.enabled.is_(True),
                ProjectSync.direction != Direction.IN.value,
            )
        )
    )

"""Bulk-load generated bugs into a channel with set-based inserts (the API would take minutes)."""

import asyncio
import random
import sys
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text, update

from bot.db.engine import create_engine
from bot.db.tables import Channel, FieldValue, Item, ItemCounter, Project
from bot.ids import new_id

BATCH = 5000
# A quarter of the bugs are In Progress: the list benchmark's filter matches 25 %.
STATUS_MIX = ["Not Started", "In Progress", "Completed", "Not Started"]
PRIORITIES = ["Urgent", "High", "Normal", "Low"]


async def load(database_url: str, teams_channel_id: str, count: int) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as conn:
            channel_id = await conn.scalar(
                select(Channel.id).where(Channel.teams_id == teams_channel_id)
            )
            project_id = await conn.scalar(
                select(Project.id).where(Project.channel_id == channel_id)
            )
            statuses = dict(
                (
                    await conn.execute(
                        select(FieldValue.name, FieldValue.id).where(
                            FieldValue.channel_id == channel_id,
                            FieldValue.field == "status",
                            FieldValue.type == "Bug",
                        )
                    )
                ).all()
            )
            first = await conn.scalar(
                update(ItemCounter)
                .where(ItemCounter.channel_id == channel_id, ItemCounter.kind == "bug")
                .values(last_internal_id=ItemCounter.last_internal_id + count)
                .returning(ItemCounter.last_internal_id)
            )
            start = (first or count) - count
            rng = random.Random(7)
            now = datetime(2026, 11, 1, tzinfo=UTC)
            for offset in range(0, count, BATCH):
                rows = []
                for number in range(offset, min(offset + BATCH, count)):
                    status = STATUS_MIX[number % len(STATUS_MIX)]
                    item_id = new_id()
                    rows.append(
                        {
                            "id": item_id,
                            "channel_id": channel_id,
                            "kind": "bug",
                            "internal_id": start + number + 1,
                            "name": f"Generated bug {number}",
                            "body": "Generated for the benchmarks.",
                            "owner": None,
                            "status": status,
                            "status_id": statuses[status],
                            "priority": rng.choice(PRIORITIES),
                            "severity": "Medium",
                            "project_id": project_id,
                            "source": "Svc.Native",
                            "source_id": item_id,
                            "start_date": None,
                            "due_date": now + timedelta(minutes=rng.randrange(0, 60 * 24 * 90)),
                            "completed_date": None,
                            "effort": None,
                            "phase": None,
                            "phase_name": None,
                            "bucket": [],
                            "bucket_name": None,
                            "entity_id": None,
                            "sync_status": None,
                            "sync_at": now,
                            "created_by": None,
                            "updated_by": None,
                            "created_at": now,
                            "updated_at": now,
                        }
                    )
                await conn.execute(Item.__table__.insert(), rows)
        # Statistics and a visibility map, as autovacuum would leave a long-lived database.
        async with engine.connect() as conn:
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            vacuum = "VACUUM ANALYZE" if conn.dialect.name == "postgresql" else "ANALYZE"
            await autocommit.execute(text(vacuum))
    finally:
        await engine.dispose()


if __name__ == "__main__":
    asyncio.run(load(sys.argv[1], sys.argv[2], int(sys.argv[3])))

"""The due-date sweep over 1M items, 10k of which crossed the overdue line since the last run,
beside the raw SQL that only selects those 10k, in the same run (`python -m bench due_sweep`).

Items are generated set-based (one INSERT … SELECT), spread over 20 channels, due dates one a
minute apart from a fixed start; the sweep's last run and its now are put 10k due dates apart.
Each round's writes (alerts, events) are removed before the next, so every round sweeps alike.
"""

import asyncio
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import delete, select, text, update

from bench.harness import scratch_database
from bot import workspace
from bot.clock import FrozenClock
from bot.db.engine import create_engine, session_factory
from bot.db.migrate import migrate
from bot.db.tables import Channel, DueAlert, Job, PendingEvent, Project
from bot.db.uow import unit_of_work
from bot.directory.schemas import MembershipType
from bot.directory.teams import upsert_team
from bot.events import sweep
from bot.jobs.recurring import recurring_id
from bot.schemas import Trigger
from bot.timestamps import format_timestamp

ITEMS = 1_000_000
CROSSING = 10_000
CHANNELS = 20
ROUNDS = 5
START = datetime(2026, 1, 1, tzinfo=UTC)

_GENERATE = {
    # n from 0; item n is due START + n minutes, in channel n % CHANNELS.
    "postgresql": "SELECT n FROM generate_series(0, :items - 1) AS n",
    "sqlite": (
        "WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < :items - 1) "
        "SELECT n FROM s"
    ),
}
_ID = {
    "postgresql": "lpad(to_hex(n), 24, '0')",
    "sqlite": "printf('%024x', n)",
}
_DUE = {
    "postgresql": "(CAST(:start AS timestamptz) + n * interval '1 minute')",
    "sqlite": "strftime('%Y-%m-%d %H:%M:%f', :start, n || ' minutes')",
}
_RAW = (
    "SELECT items.id FROM items WHERE items.kind IN ('bug', 'task') "
    "AND items.due_date > :last AND items.due_date <= :now"
)


async def _generate(url: str, kind: str) -> None:
    engine = create_engine(url, statement_timeout_s=3600)
    await migrate(engine)
    clock = FrozenClock(START)
    sessions = session_factory(engine)
    async with unit_of_work(sessions, clock) as uow:
        await upsert_team(uow, team_id="19:bench", name="Bench", tenant_id="t", group_id=None)
        for number in range(CHANNELS):
            await workspace.add_channel(
                uow,
                team_id="19:bench",
                channel_id=f"19:bench-{number}",
                name=f"C{number}",
                membership_type=MembershipType.STANDARD,
            )
    async with engine.begin() as connection:
        channels = (
            await connection.execute(
                select(Channel.id, Project.id)
                .join(Project, Project.channel_id == Channel.id)
                .order_by(Channel.id)
            )
        ).all()
        values = " UNION ALL ".join(
            f"SELECT {n} AS c, '{channel}' AS channel_id, '{project}' AS project_id"
            for n, (channel, project) in enumerate(channels)
        )
        created = (
            "'2026-01-01 00:00:00.000000'" if kind == "sqlite" else "CAST(:start AS timestamptz)"
        )
        await connection.execute(
            text(
                f"INSERT INTO items (id, channel_id, kind, internal_id, name, status, priority, "
                f"project_id, source, source_id, due_date, bucket, sync_at, created_at, "
                f"updated_at) SELECT {_ID[kind]}, ch.channel_id, "
                f"CASE WHEN n % 2 = 0 THEN 'bug' ELSE 'task' END, n, 'Item', 'Not Started', "
                f"'Medium', ch.project_id, 'Svc.Native', {_ID[kind]}, {_DUE[kind]}, '[]', "
                f"{created}, {created}, {created} "
                f"FROM ({_GENERATE[kind]}) AS g JOIN ({values}) AS ch ON ch.c = n % {CHANNELS}"
            ),
            {"items": ITEMS, "start": START if kind == "postgresql" else "2026-01-01 00:00:00"},
        )
        await connection.execute(text("ANALYZE"))
    await engine.dispose()


async def _measure(url: str) -> tuple[list[float], list[float], int]:
    engine = create_engine(url, statement_timeout_s=3600)
    last = START + timedelta(minutes=ITEMS // 2)
    now = last + timedelta(minutes=CROSSING)
    clock = FrozenClock(now)
    sessions = session_factory(engine)
    sweeps, raws, found = [], [], 0
    for _ in range(ROUNDS):
        async with engine.begin() as connection:
            await connection.execute(delete(DueAlert))
            await connection.execute(delete(PendingEvent))
            await connection.execute(
                update(Job)
                .where(Job.id == recurring_id(sweep.KIND.name))
                .values(payload={"sweptUntil": format_timestamp(last)})
            )
        async with unit_of_work(sessions, clock) as uow:
            await sweep.ensure_job(uow)
        async with engine.begin() as connection:
            await connection.execute(
                update(Job)
                .where(Job.id == recurring_id(sweep.KIND.name))
                .values(payload={"sweptUntil": format_timestamp(last)})
            )
        started = time.perf_counter()
        async with unit_of_work(sessions, clock) as uow:
            # The updated_at half sees nothing: every item was written at START.
            await sweep.sweep(uow, default_window=timedelta(minutes=1))
        sweeps.append(time.perf_counter() - started)
        started = time.perf_counter()
        async with engine.connect() as connection:
            rows = (await connection.execute(text(_RAW), {"last": last, "now": now})).all()
        raws.append(time.perf_counter() - started)
        found = len(rows)
    async with engine.connect() as connection:
        overdue = select(text("count(*)")).where(PendingEvent.trigger == Trigger.OVERDUE)
        fired = await connection.scalar(overdue.select_from(PendingEvent.__table__))
    await engine.dispose()
    assert fired == found, (fired, found)
    return sweeps, raws, found


def measure(kind: str) -> tuple[list[float], list[float], int]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        started = time.perf_counter()
        asyncio.run(_generate(url, kind))
        print(
            f"data     {kind:10} {ITEMS:,} items generated in {time.perf_counter() - started:.0f} s"
        )
        return asyncio.run(_measure(url))


def report(kind: str, figures: tuple[list[float], list[float], int]) -> str:
    sweeps, raws, found = figures
    sweep_ms, raw_ms = statistics.median(sweeps) * 1000, statistics.median(raws) * 1000
    return (
        f"sweep    {kind:10} {found:,} items crossed: sweep {sweep_ms:.0f} ms, "
        f"raw select {raw_ms:.0f} ms, {sweep_ms / raw_ms:.1f}x (medians of {ROUNDS})"
    )

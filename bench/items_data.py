"""Generate the items benchmark's database: the demo, `bugs` bugs in its channel and, for the full
dataset, 19 more channels set up through the app's own services and filled with bugs and tasks up
to `total` items in the database. Set-based inserts (COPY on PostgreSQL), then statistics."""

import asyncio
import json
import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, cast

import orjson
from sqlalchemy import Table, case, func, insert, literal, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bench.generated_rows import item_row
from bench.harness import ROWS_SOURCE, SEED_SOURCES, Dataset, run_cli, run_module
from bot import demo, workspace
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import (
    Channel,
    FieldValue,
    Item,
    ItemAssignee,
    ItemCounter,
    Project,
)
from bot.db.uow import UnitOfWork, unit_of_work
from bot.directory.teams import upsert_team
from bot.directory.users import add_member, upsert_user

CHANNELS = 20  # the measured one included
CHANNELS_PER_TEAM = 5  # the demo team gets 4 more, then new teams of 5
BENCH_USERS = 8  # members of every team, the generated items' assignees
BATCH = 10_000
# A quarter of the items are In Progress: the list benchmark's filter matches 25 %.
STATUS_MIX = ["Not Started", "In Progress", "Completed", "Not Started"]
PRIORITIES = ["Urgent", "High", "Normal", "Low"]
SEVERITIES = ["Critical", "High", "Medium", "Low"]
NO_DUE_DATE_EVERY = 20  # 5 % without a due date, so lists sort nulls too
ASSIGNED_OF_TEN = 4  # 4 items in 10 have an assignee, 1 in 10 a second one
BUGS_OF_FIVE = 3  # the other channels hold 3 bugs for 2 tasks
NOW = datetime(2026, 11, 1, tzinfo=UTC)
# A batch of 10k rows writes every list index's entries: no request's time bound applies.
GENERATING_TIMEOUT_S = 600.0
ITEMS = cast(Table, Item.__table__)
ASSIGNEES = cast(Table, ItemAssignee.__table__)


@dataclass(frozen=True)
class Target:
    """A channel and kind to fill with `count` generated items: its ids, its statuses by name."""

    channel_id: str
    project_id: str
    kind: str
    count: int
    statuses: dict[str, str]


def dataset(bugs: int, total: int, name: str = "items") -> Dataset:
    """The demo, `bugs` bugs in its channel, and `total` items in the database (0: no others).
    Datasets of one name replace each other in the cache: other counts want another name."""
    sources = (Path(__file__), ROWS_SOURCE, *SEED_SOURCES)
    return Dataset(name, sources, (bugs, total, CHANNELS), partial(_generate, bugs, total))


def _generate(bugs: int, total: int, env: dict[str, str]) -> None:
    signed_in = json.loads(run_cli(env, "admin", "demo"))
    url = env["DATABASE_URL"]
    run_module(env, "bench.items_data", url, signed_in["channelId"], str(bugs), str(total))


async def load(database_url: str, teams_channel_id: str, bugs: int, total: int) -> None:
    engine = create_engine(database_url, statement_timeout_s=GENERATING_TIMEOUT_S)
    try:
        async with unit_of_work(session_factory(engine), SystemClock()) as uow:
            channels, users = await _set_up(uow, with_others=total > 0)
        async with engine.begin() as conn:
            existing = await conn.scalar(select(func.count()).select_from(Item)) or 0
            targets = await _targets(conn, teams_channel_id, channels, bugs, total - existing)
            rng = random.Random(7)
            for target in targets:
                start = await _reserve(conn, target)
                await _insert_items(conn, target, start, rng)
                await _assign(conn, target, start, users)
        await _analyze(engine)
    finally:
        await engine.dispose()


async def _set_up(uow: UnitOfWork, *, with_others: bool) -> tuple[list[str], list[str]]:
    """The other channels (in the demo team, then in new teams) and the bench users, members of
    every team, through the services the CLI calls: the channels' Teams ids, the users' ids."""
    teams = [demo.TEAM_ID]
    channels, users = [], []
    for number in range(1, CHANNELS if with_others else 1):
        team, position = divmod(number, CHANNELS_PER_TEAM)
        if team > 0 and position == 0:
            teams.append(f"19:bench-items-team-{team}@thread.tacv2")
            await upsert_team(uow, team_id=teams[-1], name=f"Bench team {team}")
        channels.append(f"19:bench-items-{number}@thread.tacv2")
        await workspace.add_channel(
            uow, team_id=teams[-1], channel_id=channels[-1], name=f"Bench channel {number}"
        )
    for number in range(BENCH_USERS):
        username = f"bench.items.{number}@demo.example"
        user = await upsert_user(
            uow,
            source_id=f"00000000-0000-0000-0002-{number:012d}",
            username=username,
            display_name=f"Bench Items {number}",
            email=username,
        )
        users.append(user.id)
        for team_id in teams:
            await add_member(uow, team_id=team_id, user_ref=username)
    return channels, users


async def _targets(
    conn: AsyncConnection, measured: str, others: list[str], bugs: int, to_add: int
) -> list[Target]:
    """`bugs` bugs for the measured channel; what is left of `to_add` spread over the others."""
    rows = (
        await conn.execute(
            select(Channel.teams_id, Channel.id, Project.id).join(
                Project, Project.channel_id == Channel.id
            )
        )
    ).all()
    ids = {teams_id: (channel_id, project_id) for teams_id, channel_id, project_id in rows}
    statuses: dict[tuple[str, str], dict[str, str]] = {}
    for channel_id, kind, name, value_id in await conn.execute(
        select(FieldValue.channel_id, FieldValue.type, FieldValue.name, FieldValue.id).where(
            FieldValue.field == "status"
        )
    ):
        statuses.setdefault((channel_id, kind.lower()), {})[name] = value_id

    def target(teams_id: str, kind: str, count: int) -> Target:
        channel_id, project_id = ids[teams_id]
        return Target(channel_id, project_id, kind, count, statuses[(channel_id, kind)])

    targets = [target(measured, "bug", bugs)]
    rest = max(to_add - bugs, 0)
    for number, teams_id in enumerate(others):
        count = rest // len(others) + (1 if number < rest % len(others) else 0)
        in_bugs = count * BUGS_OF_FIVE // 5
        targets += [target(teams_id, "bug", in_bugs), target(teams_id, "task", count - in_bugs)]
    return targets


async def _reserve(conn: AsyncConnection, target: Target) -> int:
    """Take `count` numbers from the channel's counter, as creating them one by one would."""
    last = await conn.scalar(
        update(ItemCounter)
        .where(ItemCounter.channel_id == target.channel_id, ItemCounter.kind == target.kind)
        .values(last_internal_id=ItemCounter.last_internal_id + target.count)
        .returning(ItemCounter.last_internal_id)
    )
    return (last or target.count) - target.count


async def _insert_items(
    conn: AsyncConnection, target: Target, start: int, rng: random.Random
) -> None:
    for offset in range(0, target.count, BATCH):
        numbers = range(start + offset + 1, start + min(offset + BATCH, target.count) + 1)
        await _insert(conn, ITEMS, [_item(target, number, rng) for number in numbers])


def _item(target: Target, number: int, rng: random.Random) -> dict[str, Any]:
    status = STATUS_MIX[number % len(STATUS_MIX)]
    created = NOW - timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
    due = NOW + timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
    return item_row(
        channel_id=target.channel_id,
        kind=target.kind,
        internal_id=number,
        name=f"Generated {target.kind} {number}",
        status=status,
        status_id=target.statuses[status],
        priority=rng.choice(PRIORITIES),
        severity=rng.choice(SEVERITIES) if target.kind == "bug" else None,
        project_id=target.project_id,
        due_date=None if rng.randrange(NO_DUE_DATE_EVERY) == 0 else due,
        created=created,
    )


async def _insert(conn: AsyncConnection, table: Table, rows: list[dict[str, Any]]) -> None:
    """One set of rows: COPY through asyncpg on PostgreSQL, an executemany on SQLite."""
    if conn.dialect.name != "postgresql":
        await conn.execute(table.insert(), rows)
        return
    columns = list(rows[0])
    records = [
        tuple(orjson.dumps(value).decode() if isinstance(value, list) else value for value in row)
        for row in (row.values() for row in rows)
    ]
    driver = (await conn.get_raw_connection()).driver_connection
    assert driver is not None
    await driver.copy_records_to_table(table.name, records=records, columns=columns)


async def _assign(conn: AsyncConnection, target: Target, start: int, users: list[str]) -> None:
    """Assignees on a share of the generated items, inserted as bot.items.assignees does: from
    the items table, so the database copies kind, channel and creation time."""
    shares = (Item.internal_id % 10 < ASSIGNED_OF_TEN, Item.internal_id % 10 == 0)
    for position, share in enumerate(shares):
        user = case(
            dict(enumerate(users)),
            value=(Item.internal_id + position) % len(users),
        )
        rows = select(
            Item.id, user, literal(position), Item.kind, Item.channel_id, Item.created_at
        ).where(
            Item.channel_id == target.channel_id,
            Item.kind == target.kind,
            Item.internal_id > start,
            share,
        )
        columns = ("item_id", "user_id", "position", "kind", "channel_id", "created_at")
        await conn.execute(insert(ASSIGNEES).from_select(columns, rows))


async def _analyze(engine: AsyncEngine) -> None:
    """Statistics and a visibility map, as autovacuum would leave a long-lived database."""
    async with engine.connect() as conn:
        autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
        vacuum = "VACUUM ANALYZE" if conn.dialect.name == "postgresql" else "ANALYZE"
        await autocommit.execute(text(vacuum))


if __name__ == "__main__":
    url, channel, bugs = sys.argv[1:4]
    total = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    asyncio.run(load(url, channel, int(bugs), total))

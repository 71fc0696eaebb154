"""Bulk-load the personal-view data with set-based inserts: 400 channels in 100 teams, the demo
user a member of 50 of those teams (200 channels), 100,000 tasks in all, 2,000 assigned to them
and each of the others to one of 200 other users (so the planners' statistics see a user's
assignments as the small set they are)."""

import asyncio
import json
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection

from bench.generated_rows import item_row
from bench.harness import ROWS_SOURCE, SEED_SOURCES, Dataset, run_cli, run_module
from bot import demo
from bot.db.engine import create_engine
from bot.db.tables import (
    Channel,
    FieldValue,
    Item,
    ItemAssignee,
    ItemCounter,
    Project,
    Team,
    TeamMember,
    User,
)
from bot.ids import new_id

TEAMS = 100
CHANNELS_PER_TEAM = 4
MEMBER_TEAMS = 50  # the demo user's teams: 200 channels
TASKS = 100_000
MINE = 2_000
OTHER_USERS = 200
BATCH = 5000
STATUS_MIX = ["Not Started", "In Progress", "Completed", "Not Started"]
PRIORITIES = ["Urgent", "High", "Normal", "Low"]
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def dataset() -> Dataset:
    """The demo, then the teams, channels, users and tasks above, the demo's first user the
    member and assignee."""
    counts = (TEAMS, CHANNELS_PER_TEAM, MEMBER_TEAMS, TASKS, MINE, OTHER_USERS)
    return Dataset("me_tasks", (Path(__file__), ROWS_SOURCE, *SEED_SOURCES), counts, _generate)


def _generate(env: dict[str, str]) -> None:
    signed_in = json.loads(run_cli(env, "admin", "demo"))
    url, username = env["DATABASE_URL"], demo.USERS[0][1]
    run_module(env, "bench.me_tasks_data", url, signed_in["channelId"], username)


async def load(database_url: str, demo_channel: str, username: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as conn:
            await _load(conn, demo_channel, username)
        # Statistics and a visibility map, as autovacuum would leave a long-lived database.
        async with engine.connect() as conn:
            autocommit = await conn.execution_options(isolation_level="AUTOCOMMIT")
            vacuum = "VACUUM ANALYZE" if conn.dialect.name == "postgresql" else "ANALYZE"
            await autocommit.execute(text(vacuum))
    finally:
        await engine.dispose()


async def _load(conn: AsyncConnection, demo_channel: str, username: str) -> None:
    demo = (await conn.execute(select(Channel).where(Channel.teams_id == demo_channel))).one()
    me = await conn.scalar(select(User.id).where(User.username == username))
    other_users = [_user(number) for number in range(OTHER_USERS)]
    await conn.execute(User.__table__.insert(), other_users)
    others_ids = [user["id"] for user in other_users]
    template = (
        (await conn.execute(select(FieldValue).where(FieldValue.channel_id == demo.id)))
        .mappings()
        .all()
    )
    # Teams: the demo team (with three more channels) and 99 new ones; the demo user belongs to
    # the demo team and the first 49 new ones, the other users to every team.
    teams = [_team(number) for number in range(1, TEAMS)]
    await conn.execute(Team.__table__.insert(), teams)
    team_ids = [demo.team_id] + [team["id"] for team in teams]
    members = [
        {"team_id": team_id, "user_id": user, "created_at": NOW}
        for number, team_id in enumerate(team_ids)
        for user in ([me] if 0 < number < MEMBER_TEAMS else []) + others_ids
    ]
    await conn.execute(TeamMember.__table__.insert(), members)
    channels = [
        _channel(team_id, number, position)
        for number, team_id in enumerate(team_ids)
        for position in range(CHANNELS_PER_TEAM)
        if (number, position) != (0, 0)  # the demo channel itself
    ]
    await conn.execute(Channel.__table__.insert(), channels)
    await conn.execute(Project.__table__.insert(), [_project(channel) for channel in channels])
    values = [
        {**value, "id": new_id(), "channel_id": channel["id"]}
        for channel in channels
        for value in template
    ]
    await conn.execute(FieldValue.__table__.insert(), values)
    await conn.execute(
        ItemCounter.__table__.insert(),
        [
            {"channel_id": channel["id"], "kind": kind, "last_internal_id": 0, "version": 0}
            for channel in channels
            for kind in ("bug", "task")
        ],
    )
    statuses = {
        (value["channel_id"], value["name"]): value["id"]
        for value in [*template, *values]
        if value["field"] == "status" and value["type"] == "Task"
    }
    mine = [demo.id] + [c["id"] for c in channels if c["team_id"] in team_ids[:MEMBER_TEAMS]]
    others = [c["id"] for c in channels if c["team_id"] not in team_ids[:MEMBER_TEAMS]]
    await _tasks(conn, mine, others, statuses, me, others_ids)


async def _tasks(
    conn: AsyncConnection,
    mine: list[str],
    others: list[str],
    statuses: dict[tuple[str, str], str],
    me: str,
    other_users: list[str],
) -> None:
    """TASKS tasks in all (the demo's count), spread evenly over the channels; MINE of them in
    the demo user's channels assigned to them, every other one to one of the other users."""
    existing = await conn.scalar(select(func.count()).select_from(Item).where(Item.kind == "task"))
    assigned = await conn.scalar(
        select(func.count())
        .select_from(ItemAssignee)
        .join(Item, Item.id == ItemAssignee.item_id)
        .where(ItemAssignee.user_id == me, Item.kind == "task")
    )
    count, to_me = TASKS - (existing or 0), MINE - (assigned or 0)
    projects = dict((await conn.execute(select(Project.channel_id, Project.id))).all())
    numbers = dict(
        (
            await conn.execute(
                select(ItemCounter.channel_id, ItemCounter.last_internal_id).where(
                    ItemCounter.kind == "task"
                )
            )
        ).all()
    )
    every = mine + others
    rng = random.Random(7)
    for offset in range(0, count, BATCH):
        items: list[dict[str, Any]] = []
        assignees: list[dict[str, Any]] = []
        for number in range(offset, min(offset + BATCH, count)):
            # The first to_me tasks go round the demo user's channels, the rest round all.
            channel = mine[number % len(mine)] if number < to_me else every[number % len(every)]
            numbers[channel] += 1
            item = _task(number, channel, numbers[channel], projects[channel], statuses, rng)
            items.append(item)
            assignees.append(
                {
                    "item_id": item["id"],
                    "user_id": me if number < to_me else other_users[number % len(other_users)],
                    "position": 0,
                    # the copies bot.items.assignees keeps
                    "kind": item["kind"],
                    "channel_id": item["channel_id"],
                    "created_at": item["created_at"],
                }
            )
        await conn.execute(Item.__table__.insert(), items)
        await conn.execute(ItemAssignee.__table__.insert(), assignees)
    await conn.execute(
        update(ItemCounter)
        .where(ItemCounter.channel_id == bindparam("channel"), ItemCounter.kind == "task")
        .values(last_internal_id=bindparam("last")),
        [{"channel": channel, "last": last} for channel, last in numbers.items()],
    )


def _team(number: int) -> dict[str, Any]:
    return {
        "id": new_id(),
        "teams_id": f"19:bench-team-{number}@thread.tacv2",
        "name": f"Team {number:03d}",
        "tenant_id": None,
        "group_id": None,
        "created_at": NOW,
        "updated_at": NOW,
    }


def _user(number: int) -> dict[str, Any]:
    return {
        "id": new_id(),
        "source_id": f"00000000-0000-0000-0001-{number:012d}",
        "username": f"bench.user.{number}@demo.example",
        "display_name": f"Bench User {number}",
        "email": f"bench.user.{number}@demo.example",
        "source": "Microsoft.Graph.User",
        "created_at": NOW,
        "updated_at": NOW,
    }


def _channel(team_id: str, team: int, position: int) -> dict[str, Any]:
    return {
        "id": new_id(),
        "team_id": team_id,
        "teams_id": f"19:bench-channel-{team}-{position}@thread.tacv2",
        "name": f"Channel {team:03d}-{position}",
        "membership_type": "standard",
        "created_at": NOW,
        "updated_at": NOW,
    }


def _project(channel: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": new_id(),
        "channel_id": channel["id"],
        "source": "Svc.Native",
        "source_id": channel["teams_id"],
        "display_name": channel["name"],
        "project_name": channel["name"],
        "hostname": "",
        "color": "",
        "enable": True,
        "enable_bug": True,
        "created_at": NOW,
        "updated_at": NOW,
    }


def _task(
    number: int,
    channel: str,
    internal_id: int,
    project: str,
    statuses: dict[tuple[str, str], str],
    rng: random.Random,
) -> dict[str, Any]:
    status = STATUS_MIX[number % len(STATUS_MIX)]
    created = NOW - timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
    return item_row(
        channel_id=channel,
        kind="task",
        internal_id=internal_id,
        name=f"Generated task {number}",
        status=status,
        status_id=statuses[(channel, status)],
        priority=rng.choice(PRIORITIES),
        severity=None,
        project_id=project,
        due_date=created + timedelta(days=rng.randrange(1, 30)),
        created=created,
    )


if __name__ == "__main__":
    asyncio.run(load(sys.argv[1], sys.argv[2], sys.argv[3]))

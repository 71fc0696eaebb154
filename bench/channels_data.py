"""Generate the many-channels benchmark's database: 1,000 channels in 200 teams, 200 bugs in each
(200,000), the demo user a member of every team; 1,000 more users, five to a team, each assigned
20 bugs in their team's channels. Set-based inserts (COPY on PostgreSQL), then statistics.

Credentials are issued per run (`tokens`), as the other benchmarks sign the demo user in afresh:
cached ones would expire, and the database keeps only their secrets' hashes."""

import asyncio
import json
import random
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from bench import items_data, me_tasks_data
from bench.generated_rows import item_row
from bench.harness import ROWS_SOURCE, SEED_SOURCES, Dataset, run_cli, run_module
from bench.items_data import ASSIGNEES, ITEMS, NOW, PRIORITIES, SEVERITIES, STATUS_MIX
from bench.me_tasks_data import _channel, _project, _team, _user
from bot import demo
from bot.auth import service as auth
from bot.clock import SystemClock
from bot.db.engine import create_engine, session_factory
from bot.db.tables import (
    Channel,
    FieldValue,
    ItemCounter,
    Project,
    Team,
    TeamMember,
    User,
)
from bot.db.uow import unit_of_work
from bot.ids import new_id

TEAMS = 200
CHANNELS_PER_TEAM = 5
# A quarter of them In Progress: the measured list reads a full page of 50 and counts 50.
BUGS_PER_CHANNEL = 200
USERS = TEAMS * 5  # five to a team
ASSIGNED_PER_CHANNEL = 4  # to each of its team's users: 20 bugs each
CHANNELS_PER_BATCH = 50  # 10,000 bugs
TOKEN_TTL = timedelta(days=1)


def dataset() -> Dataset:
    """The demo, then the teams, channels, users and bugs above."""
    sources = (
        Path(__file__),
        Path(items_data.__file__),
        Path(me_tasks_data.__file__),
        ROWS_SOURCE,
        *SEED_SOURCES,
    )
    counts = (TEAMS, CHANNELS_PER_TEAM, BUGS_PER_CHANNEL, USERS, ASSIGNED_PER_CHANNEL)
    return Dataset("channels", sources, counts, _generate)


def places() -> list[tuple[str, str]]:
    """The generated channels' Teams ids (team, channel): what the context headers name."""
    return [
        (_team(number)["teams_id"], _channel("", number, position)["teams_id"])
        for number in range(1, TEAMS + 1)
        for position in range(CHANNELS_PER_TEAM)
    ]


def _generate(env: dict[str, str]) -> None:
    run_cli(env, "admin", "demo")
    run_module(env, "bench.channels_data", "load", env["DATABASE_URL"], demo.USERS[0][1])


async def load(database_url: str, username: str) -> None:
    engine = create_engine(database_url)
    try:
        async with engine.begin() as conn:
            await _load(conn, username)
        await items_data._analyze(engine)
    finally:
        await engine.dispose()


async def _load(conn: AsyncConnection, username: str) -> None:
    me = await conn.scalar(select(User.id).where(User.username == username))
    demo_channel = await conn.scalar(select(Channel.id).where(Channel.teams_id == demo.CHANNEL_ID))
    template = (
        (await conn.execute(select(FieldValue).where(FieldValue.channel_id == demo_channel)))
        .mappings()
        .all()
    )
    teams = [_team(number) for number in range(1, TEAMS + 1)]
    users = [_user(number) for number in range(USERS)]
    await conn.execute(Team.__table__.insert(), teams)
    await conn.execute(User.__table__.insert(), users)
    # The demo user belongs to every team, each other user to one: the channels' people.
    members = [(team["id"], me) for team in teams] + [
        (teams[number // 5]["id"], user["id"]) for number, user in enumerate(users)
    ]
    await conn.execute(
        TeamMember.__table__.insert(),
        [{"team_id": team, "user_id": user, "created_at": NOW} for team, user in members],
    )
    channels = [
        _channel(team["id"], number, position)
        for number, team in enumerate(teams, 1)
        for position in range(CHANNELS_PER_TEAM)
    ]
    await conn.execute(Channel.__table__.insert(), channels)
    projects = [_project(channel) for channel in channels]
    await conn.execute(Project.__table__.insert(), projects)
    values = [
        {**value, "id": new_id(), "channel_id": channel["id"]}
        for channel in channels
        for value in template
    ]
    await conn.execute(FieldValue.__table__.insert(), values)
    await conn.execute(
        ItemCounter.__table__.insert(),
        [
            {
                "channel_id": channel["id"],
                "kind": kind,
                "last_internal_id": BUGS_PER_CHANNEL if kind == "bug" else 0,
                "version": 0,
            }
            for channel in channels
            for kind in ("bug", "task")
        ],
    )
    statuses = {
        (value["channel_id"], value["name"]): value["id"]
        for value in values
        if value["field"] == "status" and value["type"] == "Bug"
    }
    rng = random.Random(7)
    for start in range(0, len(channels), CHANNELS_PER_BATCH):
        bugs: list[dict[str, Any]] = []
        assignees: list[dict[str, Any]] = []
        for number in range(start, start + CHANNELS_PER_BATCH):
            channel, project = channels[number], projects[number]["id"]
            team_users = users[number // CHANNELS_PER_TEAM * 5 :][:5]
            for internal_id in range(1, BUGS_PER_CHANNEL + 1):
                bug = _bug(channel["id"], internal_id, project, statuses, rng)
                bugs.append(bug)
                if internal_id <= ASSIGNED_PER_CHANNEL * 5:
                    user = team_users[internal_id % 5]["id"]
                    assignees.append(_assignee(bug, user))
        await items_data._insert(conn, ITEMS, bugs)
        await items_data._insert(conn, ASSIGNEES, assignees)


def _bug(
    channel: str,
    internal_id: int,
    project: str,
    statuses: dict[tuple[str, str], str],
    rng: random.Random,
) -> dict[str, Any]:
    status = STATUS_MIX[internal_id % len(STATUS_MIX)]
    created = NOW - timedelta(minutes=rng.randrange(0, 60 * 24 * 90))
    return item_row(
        channel_id=channel,
        kind="bug",
        internal_id=internal_id,
        name=f"Generated bug {internal_id}",
        status=status,
        status_id=statuses[(channel, status)],
        priority=rng.choice(PRIORITIES),
        severity=rng.choice(SEVERITIES),
        project_id=project,
        due_date=NOW + timedelta(minutes=rng.randrange(0, 60 * 24 * 90)),
        created=created,
    )


def _assignee(bug: dict[str, Any], user: str) -> dict[str, Any]:
    """An assignment with the copies of its item `bot.items.assignees` keeps."""
    return {
        "item_id": bug["id"],
        "user_id": user,
        "position": 0,
        "kind": bug["kind"],
        "channel_id": bug["channel_id"],
        "created_at": bug["created_at"],
    }


async def tokens(database_url: str, username: str) -> list[str]:
    """A fresh API token for `username`, then for each generated user in order, through the
    service the CLI calls. Tokens, not session cookies: a GET that slides a session's expiry
    writes on SQLite outside the writers' queue, and under this load answers 500 ("database
    is locked"); see docs/BENCHMARKS.md."""
    engine = create_engine(database_url)
    try:
        async with unit_of_work(session_factory(engine), SystemClock()) as uow:
            names = [username] + [user["username"] for user in map(_user, range(USERS))]
            ids = dict((await uow.session.execute(select(User.username, User.id))).all())
            return [
                (await auth.issue_api_token(uow, user_id=ids[name], ttl=TOKEN_TTL)).secret
                for name in names
            ]
    finally:
        await engine.dispose()


if __name__ == "__main__":
    if sys.argv[1] == "load":
        asyncio.run(load(sys.argv[2], sys.argv[3]))
    else:
        print(json.dumps(asyncio.run(tokens(sys.argv[2], sys.argv[3]))))

"""The admin CLI through its real entry point, `python -m bot` in a new process: the demo seeds
once however often it runs, and a failure prints only JSON on stdout."""

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot import demo
from bot.db.engine import create_engine
from bot.db.tables import User
from tests.cli.helpers import one_json_line

ROOT = Path(__file__).resolve().parents[2]


def run_entry_point(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


async def count_users(url: str) -> int:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(User)) or 0)
    finally:
        await engine.dispose()


def test_demo_twice_through_the_entry_point_seeds_once(database: str) -> None:
    first, second = run_entry_point("admin", "demo"), run_entry_point("admin", "demo")
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    seeded, again = one_json_line(first.stdout), one_json_line(second.stdout)
    same = ("teamId", "channelId", "entityId", "userId")
    assert {key: again[key] for key in same} == {key: seeded[key] for key in same}
    assert again["cookie"] != seeded["cookie"]
    assert asyncio.run(count_users(database)) == len(demo.USERS)


def test_a_failure_through_the_entry_point_exits_1_with_only_json_on_stdout(
    environment: pytest.MonkeyPatch,
) -> None:
    done = run_entry_point("admin", "member", "add", "--team-id", "T", "--user", "a@b.test")
    assert done.returncode == 1, done.stderr
    assert one_json_line(done.stdout) == {"error": "Team 'T' is not known."}
    assert "Traceback" not in done.stderr

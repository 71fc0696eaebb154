"""The admin CLI: one JSON object on stdout, exit codes 0/1/2, and effects the API then shows."""

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from sqlalchemy import func, select

from bot import demo
from bot.app import create_app
from bot.cli.main import main
from bot.db.engine import create_engine
from bot.db.tables import User
from bot.errors import PRIVATE_CHANNELS_UNSUPPORTED
from bot.ids import is_id
from bot.settings import Settings
from tests.conftest import SECRET
from tests.factories import CHANNEL, TEAM, TENANT

ROOT = Path(__file__).resolve().parents[2]
ADA = ("00000000-0000-0000-0000-0000000000a1", "Ada@Contoso.test", "Ada Lovelace")
GRACE = ("00000000-0000-0000-0000-0000000000b2", "grace@contoso.test", "Grace Hopper")
MS = timedelta(milliseconds=1)

Cli = Callable[..., dict[str, Any]]


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """Only the settings a test sets; no `.env` from the working directory."""
    for field in Settings.model_fields.values():
        if field.alias:
            monkeypatch.delenv(field.alias, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SECRET_KEY", SECRET)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    return monkeypatch


@pytest.fixture
def database(db: str, environment: pytest.MonkeyPatch) -> str:
    """The CLI pointed at this test's database (each engine in turn)."""
    environment.setenv("DATABASE_URL", db)
    return db


@pytest.fixture
def cli(environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run `python -m bot ARGV` in-process; check the exit code and that stdout is one JSON line."""

    def run(*argv: str, code: int = 0) -> dict[str, Any]:
        exit_code = main(list(argv))
        body = one_json_line(capsys.readouterr().out)
        assert exit_code == code, body
        return body

    return run


@pytest.fixture
def app(settings: Settings) -> web.Application:
    """The real app on the real clock, since the CLI issues credentials by the real clock."""
    return create_app(settings)


def one_json_line(out: str) -> dict[str, Any]:
    lines = out.splitlines()
    assert len(lines) == 1 and out.endswith("\n"), out
    body = json.loads(lines[0])
    assert isinstance(body, dict)
    return body


def add_user(cli: Cli, user: tuple[str, str, str], *extra: str, code: int = 0) -> dict[str, Any]:
    object_id, upn, name = user
    argv = ("admin", "user", "add", "--id", object_id, "--upn", upn, "--name", name, *extra)
    return cli(*argv, code=code)


def channel_add(team: str = TEAM, name: str = "Bugs", *flags: str) -> tuple[str, ...]:
    where = ("--team-id", team, "--channel-id", CHANNEL)
    return ("admin", "channel", "add", *where, "--name", name, *flags)


def add_team_and_channel(cli: Cli, *channel_flags: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    cli(*channel_add(TEAM, "Bugs", *channel_flags))


def timestamp(value: str) -> datetime:
    assert value.endswith("Z"), value
    return datetime.fromisoformat(value)


def run_entry_point(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", *argv],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def in_channel(cookie: str, team: str = TEAM, channel: str = CHANNEL) -> dict[str, str]:
    return {"Cookie": f"graphNodeCookie={cookie}", "x-svc-teamid": team, "x-svc-channelId": channel}


# Commands and their repeats


def test_migrate_reports_head(cli: Cli, database: str) -> None:
    assert cli("migrate") == {"migrated": "head"}


def test_migrate_creates_a_fresh_sqlite_database(cli: Cli, tmp_path: Path) -> None:
    assert cli("migrate") == {"migrated": "head"}
    assert (tmp_path / "cli.db").exists()


def test_team_add_prints_the_team_and_a_repeat_updates_its_name(cli: Cli, database: str) -> None:
    group = "a0a0a0a0-0000-0000-0000-000000000001"
    ids = ("--tenant-id", TENANT, "--group-id", group)
    team = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A", *ids)
    assert is_id(team.pop("_id"))
    assert team == {"teamId": TEAM, "name": "Team A", "tenantId": TENANT, "groupId": group}

    again = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A (renamed)")
    assert again["name"] == "Team A (renamed)"
    assert (again["tenantId"], again["groupId"]) == (TENANT, group)  # kept when not given


def test_channel_add_prints_the_channel_and_a_repeat_renames_it(cli: Cli, database: str) -> None:
    team = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    channel = cli(*channel_add())
    assert is_id(channel["_id"]) and channel["_id"] != team["_id"]
    assert channel == {
        "_id": channel["_id"],
        "channelId": CHANNEL,
        "teamId": TEAM,
        "name": "Bugs",
        "membershipType": "standard",
    }
    again = cli(*channel_add(TEAM, "Defects"))
    assert (again["_id"], again["name"]) == (channel["_id"], "Defects")


def test_channel_add_private_records_a_private_channel(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    assert cli(*channel_add(TEAM, "Bugs", "--private"))["membershipType"] == "private"
    assert (
        cli(*channel_add())["membershipType"] == "standard"
    )  # adding it again as standard updates it


def test_user_add_prints_the_user_as_the_api_shows_it(cli: Cli, database: str) -> None:
    user = add_user(cli, ADA, "--email", "ada@contoso.test")
    assert is_id(user["_id"])
    assert user == {
        "_id": user["_id"],
        "sourceId": ADA[0],
        "displayName": "Ada Lovelace",
        "email": "ada@contoso.test",
        "username": "ada@contoso.test",  # UPNs are stored lowercased
        "source": "Microsoft.Graph.User",
    }


def test_user_add_twice_updates_the_display_name(cli: Cli, database: str) -> None:
    first = add_user(cli, ADA, "--email", "ada@contoso.test")
    again = add_user(cli, (ADA[0], ADA[1], "Augusta Ada King"))
    assert again == {**first, "displayName": "Augusta Ada King"}  # same _id; email kept


def test_member_add_twice_is_fine_and_remove_ends_membership(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    user = add_user(cli, ADA)
    added = cli("admin", "member", "add", "--team-id", TEAM, "--user", "ada@contoso.test")
    assert added == {"teamId": TEAM, "user": user, "member": True}
    # By _id and by Entra object id too; already a member changes nothing.
    assert cli("admin", "member", "add", "--team-id", TEAM, "--user", user["_id"]) == added
    assert cli("admin", "member", "add", "--team-id", TEAM, "--user", ADA[0]) == added
    removed = cli("admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1])
    assert removed == {"teamId": TEAM, "user": user, "member": False}
    assert cli("admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1]) == removed


def test_session_create_prints_a_cookie_for_the_user(cli: Cli, database: str) -> None:
    user = add_user(cli, ADA)
    before = datetime.now(UTC)
    session = cli("admin", "session", "create", "--user", ADA[1])
    after = datetime.now(UTC)
    assert set(session) == {"cookie", "expiresAt", "user"}
    assert session["user"] == user
    assert len(session["cookie"]) >= 32
    eight_hours = timedelta(hours=8)  # SESSION_TTL's default
    assert before + eight_hours - MS <= timestamp(session["expiresAt"]) <= after + eight_hours


@pytest.mark.parametrize(("flags", "days"), [((), 90), (("--ttl-days", "7"), 7)])
def test_token_create_expires_after_the_ttl(
    cli: Cli, database: str, flags: tuple[str, ...], days: int
) -> None:
    user = add_user(cli, ADA)
    before = datetime.now(UTC)
    token = cli("admin", "token", "create", "--user", ADA[1], *flags)
    after = datetime.now(UTC)
    assert set(token) == {"token", "expiresAt", "user"}
    assert token["user"] == user
    ttl = timedelta(days=days)
    assert before + ttl - MS <= timestamp(token["expiresAt"]) <= after + ttl


def test_demo_prints_the_demo_context(cli: Cli, database: str) -> None:
    seeded = cli("admin", "demo")
    assert set(seeded) == {"cookie", "teamId", "channelId", "entityId", "userId"}
    assert (seeded["teamId"], seeded["channelId"]) == (demo.TEAM_ID, demo.CHANNEL_ID)
    assert seeded["entityId"] == demo.ENTITY_ID
    ada = cli("admin", "session", "create", "--user", "ada@demo.example")["user"]
    assert seeded["userId"] == ada["_id"]


# Domain errors: exit 1


def test_channel_add_for_an_unknown_team_fails(cli: Cli, database: str) -> None:
    error = cli(*channel_add("19:nope@thread.tacv2"), code=1)
    assert error == {"error": "Team '19:nope@thread.tacv2' is not known; add the team first."}


def test_channel_add_under_another_team_fails(cli: Cli, database: str) -> None:
    add_team_and_channel(cli)
    other = "19:team-b@thread.tacv2"
    cli("admin", "team", "add", "--team-id", other, "--name", "Team B")
    error = cli(*channel_add(other, "Stolen"), code=1)
    assert error == {"error": f"Channel '{CHANNEL}' belongs to another team."}


def test_member_add_for_an_unknown_user_or_team_fails(cli: Cli, database: str) -> None:
    cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A")
    unknown_user = cli("admin", "member", "add", "--team-id", TEAM, "--user", "x@y.test", code=1)
    assert unknown_user == {"error": "User 'x@y.test' is not known."}
    add_user(cli, ADA)
    unknown_team = cli("admin", "member", "remove", "--team-id", "T", "--user", ADA[1], code=1)
    assert unknown_team == {"error": "Team 'T' is not known."}


def test_user_add_with_another_users_upn_fails(cli: Cli, database: str) -> None:
    add_user(cli, ADA)
    error = add_user(cli, (GRACE[0], "ADA@contoso.test", GRACE[2]), code=1)
    assert error == {"error": "Username 'ada@contoso.test' belongs to another user."}


@pytest.mark.parametrize("command", ["session", "token"])
def test_credentials_for_an_unknown_user_fail(cli: Cli, database: str, command: str) -> None:
    error = cli("admin", command, "create", "--user", "nobody@contoso.test", code=1)
    assert error == {"error": "User 'nobody@contoso.test' is not known."}


# Usage and settings errors: exit 2; an unreachable database: exit 1, still JSON


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["admin", "team", "add", "--team-id", TEAM],
            "the following arguments are required: --name",
        ),
        (["admin", "token", "create", "--user", "a@b.test", "--ttl-days", "0"], "--ttl-days"),
        (["admin", "token", "create", "--user", "a@b.test", "--ttl-days", "7.5"], "--ttl-days"),
        (["admin", "user", "add", "--id", "x", "--upn", "a@b.test"], "--name"),
        (["admin", "team", "delete"], "invalid choice: 'delete'"),
        ([], "the following arguments are required"),
    ],
)
def test_usage_errors_exit_2(cli: Cli, argv: list[str], message: str) -> None:
    error = cli(*argv, code=2)
    assert set(error) == {"error"}
    assert error["error"].startswith("python -m bot")
    assert message in error["error"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DATABASE_URL", "mysql://root@localhost/tracker", "Invalid setting DATABASE_URL: use "),
        ("SECRET_KEY", "changeme", "Invalid setting SECRET_KEY: must be a random value"),
        ("SECRET_KEY", "too-short", "Invalid setting SECRET_KEY: must be a random value"),
        ("SESSION_TTL", "ten", "Invalid setting SESSION_TTL: "),
    ],
)
def test_a_bad_setting_exits_2_naming_it(
    cli: Cli, environment: pytest.MonkeyPatch, name: str, value: str, message: str
) -> None:
    environment.setenv(name, value)
    error = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A", code=2)
    assert error["error"].startswith(message), error


def test_postgresql_without_secret_key_exits_2(cli: Cli, environment: pytest.MonkeyPatch) -> None:
    environment.setenv("DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/x")
    environment.delenv("SECRET_KEY")
    error = cli("migrate", code=2)
    assert error == {"error": "Invalid setting SECRET_KEY: required with PostgreSQL"}


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_an_unreachable_database_exits_1_with_a_json_error(
    cli: Cli, environment: pytest.MonkeyPatch, tmp_path: Path, engine: str
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    url = {
        "sqlite": f"sqlite+aiosqlite:///{tmp_path / 'a-file' / 'app.db'}",
        "postgresql": "postgresql+asyncpg://postgres@127.0.0.1:1/tracker",  # nothing listens
    }[engine]
    environment.setenv("DATABASE_URL", url)
    error = cli("admin", "team", "add", "--team-id", TEAM, "--name", "Team A", code=1)
    assert error["error"].startswith("Database error: "), error


# What a user then sees through the API


async def run_in_thread(cli: Cli, *argv: str, code: int = 0) -> dict[str, Any]:
    """The CLI from an async test: `main` runs its own event loop, so not on this one."""
    return await asyncio.to_thread(cli, *argv, code=code)


async def test_a_members_cookie_opens_the_channel_until_the_member_is_removed(
    cli: Cli, database: str, client
) -> None:
    await asyncio.to_thread(add_team_and_channel, cli)
    user = await run_in_thread(
        cli, "admin", "user", "add", "--id", ADA[0], "--upn", ADA[1], "--name", ADA[2]
    )
    await run_in_thread(cli, "admin", "member", "add", "--team-id", TEAM, "--user", ADA[1])
    cookie = (await run_in_thread(cli, "admin", "session", "create", "--user", ADA[1]))["cookie"]

    me = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"})
    assert me.status == 200
    assert await me.json() == user
    context = await client.get("/api/context", headers=in_channel(cookie))
    assert context.status == 200
    body = await context.json()
    assert (body["team"]["teamId"], body["channel"]["channelId"]) == (TEAM, CHANNEL)
    assert body["user"] == user

    await run_in_thread(cli, "admin", "member", "remove", "--team-id", TEAM, "--user", ADA[1])
    refused = await client.get("/api/context", headers=in_channel(cookie))
    assert refused.status == 403
    assert await refused.json() == {"error": f"You are not a member of team '{TEAM}'."}
    still_signed_in = await client.get("/api/me", headers={"Cookie": f"graphNodeCookie={cookie}"})
    assert still_signed_in.status == 200


async def test_a_private_channel_is_refused_to_members(cli: Cli, database: str, client) -> None:
    await asyncio.to_thread(add_team_and_channel, cli, "--private")
    await asyncio.to_thread(add_user, cli, ADA)
    await run_in_thread(cli, "admin", "member", "add", "--team-id", TEAM, "--user", ADA[1])
    cookie = (await run_in_thread(cli, "admin", "session", "create", "--user", ADA[1]))["cookie"]
    response = await client.get("/api/context", headers=in_channel(cookie))
    assert response.status == 403
    assert await response.json() == {"error": PRIVATE_CHANNELS_UNSUPPORTED}


async def test_an_api_token_works_as_a_bearer_token(cli: Cli, database: str, client) -> None:
    user = await asyncio.to_thread(add_user, cli, ADA)
    created = await run_in_thread(
        cli, "admin", "token", "create", "--user", ADA[0], "--ttl-days", "7"
    )
    response = await client.get("/api/me", headers={"Authorization": f"Bearer {created['token']}"})
    assert response.status == 200
    assert await response.json() == user


async def test_the_demo_cookie_opens_the_demo_channel_as_the_demo_user(
    cli: Cli, database: str, client
) -> None:
    seeded = await run_in_thread(cli, "admin", "demo")
    headers = in_channel(seeded["cookie"], seeded["teamId"], seeded["channelId"])
    response = await client.get("/api/context", headers=headers)
    assert response.status == 200
    body = await response.json()
    assert body["user"]["_id"] == seeded["userId"]
    assert body["user"]["username"] == "ada@demo.example"


# The real entry point


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

"""The admin CLI's usage and settings errors exit 2, and an unreachable database exits 1; each
still prints one JSON object naming the problem."""

from pathlib import Path

import pytest

from tests.cli.helpers import Cli
from tests.factories import TEAM


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
        (
            ["admin", "backup", "--out", "/nonexistent-backups/tracker.tar.gz"],
            "argument --out: the folder of '/nonexistent-backups/tracker.tar.gz' does not exist",
        ),
        (
            ["admin", "export", "--team-id", TEAM, "--channel-id", "C", "--out", "no/such/x.json"],
            "argument --out: the folder of 'no/such/x.json' does not exist",
        ),
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

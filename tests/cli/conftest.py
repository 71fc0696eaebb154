"""Fixtures of the admin CLI tests: an environment holding only the settings a test sets, the
CLI pointed at the test's database, and the CLI run in-process."""

from pathlib import Path
from typing import Any

import pytest

from bot.cli.main import main
from bot.settings import Settings
from tests.cli.helpers import Cli, one_json_line
from tests.conftest import SECRET


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

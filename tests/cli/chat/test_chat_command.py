"""`python -m bot chat --start`: an app of the console's own, whatever the environment says, and
the console reading what is typed on standard input."""

import io
import json

import pytest

from bot.cli.main import main
from tests.teams.activities import APP_ID


def test_chat_start_answers_from_a_demo_of_its_own(
    environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    environment.setenv("MicrosoftAppId", APP_ID)  # ignored: the console's app has none
    environment.setenv("DATABASE_URL", "postgresql+asyncpg://nobody@127.0.0.1:1/none")  # ignored
    environment.setattr("sys.stdin", io.StringIO("bugs\nnew bug Login fails\n"))  # then the end
    assert main(["chat", "--start"]) == 0
    out = capsys.readouterr().out
    assert "Talking to the bot at http://127.0.0.1:" in out
    _welcome, listed, created = out.split("bot> ")
    assert "Login button does nothing on Safari" in listed  # the demo's bug #1
    assert "Login fails" in created


def test_chat_takes_a_url_or_starts_an_app_not_both(
    environment: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chat", "--start", "--url", "http://127.0.0.1:3978"]) == 2
    assert "not allowed with argument" in json.loads(capsys.readouterr().out)["error"]

"""Each local source starts on its own, as the guides tell a newcomer to run it (a fresh
interpreter imports it first: a circular import among the stand-ins would show here only)."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("source", ["azure_devops", "jira", "planner"])
def test_a_local_source_runs_with_python_dash_m(source: str) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", f"bot.sync.standins.{source}", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert "--port" in ran.stdout

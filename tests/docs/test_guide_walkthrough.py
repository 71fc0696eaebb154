"""The walk-through of `docs/guide.md`, pasted as a newcomer would: its ```sh blocks, in
order, in one bash, against the app served as `make run` serves it (`python app.py`, the embedded
SQLite, the demo), from a folder holding nothing but `.venv`. Any command that fails stops the
run, and the test shows the block and what it printed. The README's taste of the API runs the
same way."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide.md"
HEADING = "## Walk-through"
README = ROOT / "README.md"
TASTE = "## A taste of the API"
BASE_LINE = "BASE=http://127.0.0.1:3978"
MARK = "@@ block"
DONE = "@@ walk-through done"
# What the walk-through must show a newcomer; each is looked for in its commands.
COVERS = (
    "admin demo",  # sign in
    "/api/me/bug/channels",  # list channels
    "/odata/bugs",
    "/odata/tasks",
    "/details",
    "-X PATCH",
    "/odata/status",
    '"category"',
    "/api/priority",
    "/odata/priority",
    "/api/projects",
    "/odata/_fieldMappings",
    "/api/me/tasks",  # a personal view
    "/api/bulk/bug",
    "$filter",
    "$orderby",
    "@odata.nextLink",
)
# A curl that fails on an HTTP error (the body kept), and tells what it got on stderr, since a
# command substitution would otherwise swallow the body into its variable.
PRELUDE = """set -euo pipefail
curl() {
    local out status=0
    out=$(command curl --fail-with-body --show-error "$@") || status=$?
    printf '%s\\n' "$out"
    if [ "$status" -ne 0 ]; then printf 'curl exited %s; it printed: %s\\n' "$status" "$out" >&2; fi
    return "$status"
}
"""


def walkthrough_blocks(page: str, heading: str = HEADING) -> list[str]:
    """The ```sh blocks between `heading` (the walk-through's) and the next section."""
    section = page.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```sh\n(.*?)^```$", section, flags=re.DOTALL | re.MULTILINE)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def fresh_environment(workdir: Path, port: int) -> dict[str, str]:
    """This process's environment without any of the app's settings (as on a fresh machine),
    then a database and data folder of the test's own, and a free port."""
    names = {(field.alias or name).lower() for name, field in Settings.model_fields.items()}
    env = {key: value for key, value in os.environ.items() if key.lower() not in names}
    env.update(
        DATABASE_URL=f"sqlite+aiosqlite:///{workdir / 'data' / 'app.db'}",
        DATA_DIR=str(workdir / "data"),
        PORT=str(port),
    )
    return env


def launch(workdir: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], Path]:
    """`python app.py` started in `workdir` with `env`, and the file its output goes to."""
    log = workdir / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "app.py")],
            cwd=workdir,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    return server, log


def wait_until_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server stopped (exit {server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    pytest.fail(f"the server was not ready within 30 s:\n{log.read_text()}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The base URL of `python app.py` serving a fresh SQLite file with the demo, and the
    environment it runs with (the CLI in the walk-through must see the same database)."""
    port = free_port()
    env = fresh_environment(tmp_path, port)
    # The walk-through runs `.venv/bin/python` from the clone's folder: here, the one running us.
    (tmp_path / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    server, log = launch(tmp_path, env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(base, server, log)
        yield base, env
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_walkthrough_is_marked_and_covers_what_a_newcomer_needs() -> None:
    blocks = walkthrough_blocks(GUIDE.read_text())
    assert blocks, f"no ```sh blocks under {HEADING!r} in docs/guide.md"
    assert blocks[0].splitlines()[0] == BASE_LINE, f"the first block must start with {BASE_LINE}"
    commands = "\n".join(blocks)
    assert [wanted for wanted in COVERS if wanted not in commands] == []
    assert "DELETE $BASE/api/auth/session" in blocks[-1], "signing out comes last"
    assert "DELETE $BASE/api/auth/session" not in "\n".join(blocks[:-1])


def test_the_walkthrough_names_no_calendar_date_which_would_pass() -> None:
    """A date written out is in the past one day (the bug it creates would be overdue from the
    start): the walk-through computes its dates from today."""
    commands = "\n".join(walkthrough_blocks(GUIDE.read_text()))
    assert re.findall(r"\b\d{4}-\d{2}-\d{2}\b", commands) == []


def run_walkthrough(
    blocks: list[str], base: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """The blocks in one bash, `BASE` pointed at `base`, each announced by a mark."""
    script = PRELUDE
    for number, block in enumerate(blocks, start=1):
        block = block.replace(BASE_LINE, f"BASE={base}", 1)
        script += f"printf '\\n{MARK} {number}\\n'\n{block}\n"
    script += f"printf '\\n{DONE}\\n'\n"
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )


def printed_by(output: str, number: int) -> str:
    """What block `number` printed (stdout and stderr, as they came)."""
    return output.split(f"{MARK} {number}\n", 1)[-1].split(f"\n{MARK} ", 1)[0].split(DONE, 1)[0]


def test_the_walkthrough_runs_in_order_against_the_served_app(
    served: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, env = served
    blocks = walkthrough_blocks(GUIDE.read_text())
    done = run_walkthrough(blocks, base, env, tmp_path)
    if done.returncode != 0 or DONE not in done.stdout:
        started = re.findall(rf"^{MARK} (\d+)$", done.stdout, flags=re.MULTILINE)
        failing = int(started[-1]) if started else 1
        pytest.fail(
            f"docs/guide.md walk-through block {failing} failed (bash exit {done.returncode}):\n"
            f"```sh\n{blocks[failing - 1]}```\nIt printed:\n{printed_by(done.stdout, failing)}"
        )
    assert printed_by(done.stdout, len(blocks)).strip() == "204", "signing out answers 204"


def test_the_readmes_taste_of_the_api_runs_against_the_served_app(
    served: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    base, env = served
    blocks = walkthrough_blocks(README.read_text(), TASTE)
    assert blocks and blocks[0].splitlines()[0] == BASE_LINE, f"README.md: {TASTE} starts with it"
    done = run_walkthrough(blocks, base, env, tmp_path)
    assert done.returncode == 0 and DONE in done.stdout, done.stdout
    created, listed = done.stdout.split("\n", 2)[2].split("\n", 1)
    assert '"Login fails on Safari"' in created and '"Login fails on Safari"' in listed, done.stdout

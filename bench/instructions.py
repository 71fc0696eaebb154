"""Instructions per request, app against raw, counted by valgrind's callgrind: a figure that the
machine's other load cannot move (req/s on these shared machines drift by half within a
minute). Only the server process is counted, so on PostgreSQL the database's own work is not:
there the ratio compares the two processes' own overheads."""

import json
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import IO

from bench import items_data
from bench.harness import dataset_database, environment, free_port, server
from bench.items import BUGS, CREATED, ITEMS, LIST_PATH, demo_in_channel

WARM_UP = 20
COUNTED = 30


def measure(kind: str) -> dict[str, float]:
    """Millions of instructions per list and per create, for the app and its raw ceiling."""
    data = items_data.dataset(BUGS, ITEMS)
    with tempfile.TemporaryDirectory() as folder, dataset_database(kind, Path(folder), data) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        headers = demo_in_channel(env)
        servers = {
            "app": lambda port: [sys.executable, "app.py"],
            "raw": lambda port: [sys.executable, "-m", "bench.raw_items_server", str(port), url],
        }
        figures = {}
        for name, command in servers.items():
            for request in ("list", "create"):

                def call(base: str, request: str = request) -> None:
                    if request == "list":
                        send(base + LIST_PATH, headers)
                    else:
                        send(base + "/odata/bugs", headers, CREATED)

                figures[f"{request}_{name}"] = counted(
                    command, env, Path(folder) / f"{name}-{request}", call
                )
        return figures


def counted(
    command: Callable[[int], list[str]],
    env: dict[str, str],
    out: Path,
    call: Callable[[str], None],
    *,
    stderr: IO[bytes] | None = None,
) -> float:
    """Millions of instructions per call, counted after WARM_UP calls (caches filled, plans
    compiled); the server's log goes to `stderr` (default: this process's)."""
    port = free_port()
    valgrind = [
        "valgrind",
        "-q",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
    ]
    with server(
        valgrind + command(port), {**env, "PORT": str(port)}, port, stderr=stderr
    ) as running:
        for _ in range(WARM_UP):
            call(running.base)
        _instrument(running.pid, "on")
        for _ in range(COUNTED):
            call(running.base)
        _instrument(running.pid, "off")
    # The totals line of the file callgrind writes as the process ends.
    totals = next(line for line in out.read_text().splitlines() if line.startswith("totals:"))
    return int(totals.split()[1]) / COUNTED / 1e6


def _instrument(pid: int, state: str) -> None:
    subprocess.run(["callgrind_control", "-i", state, str(pid)], check=True, capture_output=True)


def send(url: str, headers: dict[str, str], body: object = None) -> None:
    data = json.dumps(body).encode() if body is not None else None
    extra = {"Content-Type": "application/json"} if data else {}
    request = urllib.request.Request(url, data=data, headers={**headers, **extra})
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()


def report(kind: str, figures: dict[str, float]) -> list[str]:
    return [
        f"{request:8} {kind:10} app {figures[f'{request}_app']:6.2f} M instructions per request"
        f"  raw {figures[f'{request}_raw']:6.2f} M"
        f"  raw/app {figures[f'{request}_raw'] / figures[f'{request}_app']:4.0%}"
        for request in ("list", "create")
    ]

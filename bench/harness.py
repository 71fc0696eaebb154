"""Start servers as separate processes, load them with wrk, and read back req/s and latency."""

import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_SERVER = os.environ.get(
    "BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432"
)
DURATION = os.environ.get("BENCH_DURATION", "5s")
SECRET = "bench-secret-key-0123456789abcdef0123456789"


@dataclass(frozen=True)
class Load:
    requests_per_second: float
    p50_ms: float
    p99_ms: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(database_url: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"}
    env.update(extra)
    return env


@dataclass(frozen=True)
class Server:
    base: str
    pid: int

    def rss_mb(self) -> float:
        """The process's resident memory now, from /proc."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024  # type: ignore[union-attr]


@contextmanager
def server(command: list[str], env: dict[str, str], port: int) -> Iterator[Server]:
    """Run a server process until the block ends; yield it once it answers."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield Server(base, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_until_up(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            urllib.request.urlopen(f"{base}/healthz", timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start within 30 s")


def wrk(url: str, *, headers: dict[str, str], connections: int, script: Path | None = None) -> Load:
    """One wrk run against `url` (two threads, as many connections as asked)."""
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: `apt-get install wrk` (make bench does this)")
    command = ["wrk", "-t2", f"-c{connections}", f"-d{DURATION}", "--latency", url]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    if script is not None:
        command += ["-s", str(script)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    if "Non-2xx" in output:
        raise RuntimeError(f"non-2xx answers during the run:\n{output}")
    return Load(
        requests_per_second=float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),  # type: ignore[union-attr]
        p50_ms=_latency(output, "50%"),
        p99_ms=_latency(output, "99%"),
    )


def _latency(output: str, percentile: str) -> float:
    value, unit = re.search(rf"{percentile}\s+([\d.]+)(us|ms|s)", output).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_module(env: dict[str, str], module: str, *args: str) -> str:
    """`python -m module args…` from the repository root; its stdout."""
    command = [sys.executable, "-m", module, *args]
    return subprocess.run(
        command, cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout


def run_cli(env: dict[str, str], *args: str) -> str:
    return run_module(env, "bot", *args)


@contextmanager
def scratch_database(kind: str, folder: Path) -> Iterator[str]:
    """An empty SQLite file, or a PostgreSQL database created for the run and dropped after."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{folder / 'bench.db'}"
        return
    name = f"tracker_bench_{secrets.token_hex(4)}"
    _psql(f'CREATE DATABASE "{name}"')
    try:
        yield f"{POSTGRES_SERVER}/{name}"
    finally:
        _psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _psql(statement: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-qc", statement],
        check=True,
        capture_output=True,
    )

"""The benchmarks' machinery: servers as separate processes loaded by wrk, and their databases
(scratch, or generated once and cached between runs)."""

import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

from bot.db.migrate import head_revision

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".bench-cache"
# The app's code that shapes every generated dataset: the demo seed and a channel's bootstrap.
# What shapes every generated item row (part of each dataset's cache key).
ROWS_SOURCE = ROOT / "bench" / "generated_rows.py"
SEED_SOURCES = tuple(
    ROOT / "bot" / path for path in ("demo.py", "workspace.py", "fields/defaults.py")
)
POSTGRES_SERVER = os.environ.get(
    "BENCH_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432"
)
DURATION = os.environ.get("BENCH_DURATION", "5s")
# Each figure and its ceilings are measured this many times, side by side (`in_rounds`).
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECRET = "bench-secret-key-0123456789abcdef0123456789"


@dataclass(frozen=True)
class Load:
    requests_per_second: float
    p50_ms: float
    p99_ms: float


@dataclass(frozen=True)
class Series:
    """One load measured once per round; read like a Load, as the median of its rounds."""

    loads: tuple[Load, ...]

    @property
    def requests_per_second(self) -> float:
        return statistics.median(load.requests_per_second for load in self.loads)

    @property
    def p50_ms(self) -> float:
        return statistics.median(load.p50_ms for load in self.loads)

    @property
    def p99_ms(self) -> float:
        return statistics.median(load.p99_ms for load in self.loads)


def in_rounds(runs: Mapping[str, Callable[[], Load]]) -> dict[str, Series]:
    """Every run once per round, one after the other, for ROUNDS rounds. On a shared machine
    whose speed drifts by half within a minute, an app and a ceiling measured minutes apart
    compare the machine's moods; measured side by side in each round, their ratio holds. Every
    other round runs them in reverse, so none always runs first (on a warm or a cold machine)."""
    measured: dict[str, list[Load]] = {name: [] for name in runs}
    for round_number in range(ROUNDS):
        order = list(runs.items())
        for name, run in order if round_number % 2 == 0 else reversed(order):
            measured[name].append(run())
    return {name: Series(tuple(loads)) for name, loads in measured.items()}


def ratio(app: Series, ceiling: Series, spec: str = ".0%") -> str:
    """The median of the rounds' ratios of app to ceiling (in requests per second), and their
    range, written with the format `spec`."""
    ratios = sorted(
        mine.requests_per_second / theirs.requests_per_second
        for mine, theirs in zip(app.loads, ceiling.loads, strict=True)
    )
    middle = format(statistics.median(ratios), spec)
    if len(ratios) == 1:
        return middle
    return f"{middle} ({format(ratios[0], spec)}–{format(ratios[-1], spec)})"


DATABASES = ("sqlite", "postgresql")
Measured = TypeVar("Measured")


def print_reports(
    measure: Callable[[str], Measured],
    report: Callable[[str, Measured], list[str]],
    databases: Sequence[str] = (),
) -> None:
    """Each database (both unless named) measured, and its report's lines printed as it ends."""
    for database in databases or DATABASES:
        for line in report(database, measure(database)):
            print(line, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def environment(database_url: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": SECRET, "LOG_LEVEL": "WARNING"}
    # No per-session list cap (`bot.web.fairness`, 4 by default): the benchmarks list on 8 or more
    # connections of one session, and a wrk run's last requests still hold their slots while the
    # next run starts.
    env["LISTS_IN_FLIGHT"] = "1000"
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

    def cpu_seconds(self) -> float:
        """The process's user and system CPU time so far, from /proc: what others' load on a
        shared machine disturbs least."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def server(
    command: list[str], env: dict[str, str], port: int, *, stderr: IO[bytes] | None = None
) -> Iterator[Server]:
    """Run a server process until the block ends; yield it once it answers. Its log goes to
    `stderr` (default: this process's)."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield Server(base, process.pid)
    finally:
        process.terminate()
        process.wait(timeout=60)  # a server under valgrind writes its counts as it ends


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


def wrk(
    url: str,
    *,
    headers: dict[str, str],
    connections: int,
    script: Path | None = None,
    script_args: tuple[str, ...] = (),
) -> Load:
    """One wrk run against `url` (two threads, as many connections as asked); `script_args`
    reach the script's `init`."""
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: `apt-get install wrk` (make bench does this)")
    command = ["wrk", "-t2", f"-c{connections}", f"-d{DURATION}", "--latency", url]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    if script is not None:
        command += ["-s", str(script), "--", *script_args]
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


@dataclass(frozen=True)
class Dataset:
    """A generated database: what shapes it (source files, row counts) and how to generate it
    into the database an environment names."""

    name: str
    sources: tuple[Path, ...]
    counts: tuple[int, ...]
    generate: Callable[[dict[str, str]], None]

    def key(self) -> str:
        """Changes whenever the generator's source, the schema's head or the counts do."""
        digest = hashlib.sha256(f"{self.name} {head_revision()} {self.counts}".encode())
        for source in self.sources:
            digest.update(source.read_bytes())
        return digest.hexdigest()[:16]


@contextmanager
def dataset_database(kind: str, folder: Path, dataset: Dataset) -> Iterator[str]:
    """A database for one run holding the dataset: copied from the cache when its key matches
    (unless BENCH_FRESH=1), else generated and cached for the next run."""
    key, fresh = dataset.key(), os.environ.get("BENCH_FRESH") == "1"
    started = time.perf_counter()
    if kind == "sqlite":
        generated = _sqlite_cache(folder, dataset, key, fresh)
        run = folder / "bench.db"
        shutil.copyfile(CACHE / f"{dataset.name}-{key}.db", run)
        url = f"sqlite+aiosqlite:///{run}"
    else:
        generated = _postgres_template(folder, dataset, key, fresh)
        name = f"tracker_bench_{secrets.token_hex(4)}"
        # FILE_COPY copies the template's files; the default (WAL_LOG) logs every page.
        _retry_while_in_use(
            f'CREATE DATABASE "{name}" TEMPLATE "{_template(dataset, key)}" STRATEGY FILE_COPY'
        )
        url = f"{POSTGRES_SERVER}/{name}"
    copied = time.perf_counter() - started - (generated or 0.0)
    origin = "cache used" if generated is None else f"generated in {generated:.0f} s"
    print(f"data     {kind:10} {dataset.name} {key}: {origin}, copied in {copied:.1f} s")
    try:
        yield url
    finally:
        if kind != "sqlite":
            _psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _sqlite_cache(folder: Path, dataset: Dataset, key: str, fresh: bool) -> float | None:
    """Make sure `.bench-cache/` holds the dataset's file, generating it (and dropping the
    dataset's stale files) if not; the seconds generation took, if it ran."""
    cached = CACHE / f"{dataset.name}-{key}.db"
    if not fresh and cached.exists():
        return None
    started = time.perf_counter()
    CACHE.mkdir(exist_ok=True)
    building = CACHE / f"{dataset.name}-{key}.{secrets.token_hex(4)}.building"
    try:
        dataset.generate(_environment(f"sqlite+aiosqlite:///{building}", folder))
        # Everything into the main file, so that copying it alone copies the database.
        with closing(sqlite3.connect(building)) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for stale in CACHE.glob(f"{dataset.name}-*.db"):
            stale.unlink()
        building.rename(cached)
    finally:
        for leftover in CACHE.glob(f"{building.name}*"):
            leftover.unlink()
    return time.perf_counter() - started


def _postgres_template(folder: Path, dataset: Dataset, key: str, fresh: bool) -> float | None:
    """Make sure the dataset's template database exists on the server, generating it (and
    dropping the dataset's stale templates) if not; the seconds generation took, if it ran."""
    template = _template(dataset, key)
    if not fresh and _psql_value(f"SELECT 1 FROM pg_database WHERE datname = '{template}'"):
        return None
    started = time.perf_counter()
    building = f"bench_build_{dataset.name}_{secrets.token_hex(4)}"
    _psql(f'CREATE DATABASE "{building}"')
    try:
        dataset.generate(_environment(f"{POSTGRES_SERVER}/{building}", folder))
        stale = _psql_value(
            "SELECT string_agg(datname, ' ') FROM pg_database "
            f"WHERE starts_with(datname, '{_template(dataset, '')}')"
        )
        for name in stale.split():
            _psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _retry_while_in_use(f'ALTER DATABASE "{building}" RENAME TO "{template}"')
    finally:
        _psql(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
    return time.perf_counter() - started


def _template(dataset: Dataset, key: str) -> str:
    return f"bench_cache_{dataset.name}_{key}"


def _environment(url: str, folder: Path) -> dict[str, str]:
    return environment(url, DATA_DIR=str(folder), SEED_DEMO="false")


def _retry_while_in_use(statement: str) -> None:
    """Run a statement that needs a database unused: the generator's sessions may still be
    ending on the server for a moment after its process exits."""
    for _ in range(50):
        try:
            _psql(statement)
            return
        except subprocess.CalledProcessError as error:
            if b"being accessed by other users" not in error.stderr:
                raise
            time.sleep(0.2)
    _psql(statement)


def _psql(statement: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-qc", statement],
        check=True,
        capture_output=True,
    )


def _psql_value(query: str) -> str:
    command = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-tAc", query]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def same_rows(app_body: bytes, raw_body: bytes) -> None:
    """Stop the run unless a raw ceiling served the app's rows and count: a ceiling that does
    less work than the app would flatter nothing but itself."""
    app, raw = json.loads(app_body), json.loads(raw_body)
    for key in ("value", "@odata.count"):
        if app.get(key) != raw.get(key):
            raise RuntimeError(f"the raw ceiling's {key} differs from the app's")


def same_shape(app_body: bytes, raw_body: bytes) -> None:
    """Stop the run unless a raw ceiling answered a create with the app's fields (the values
    differ: ids, numbers, times)."""
    app, raw = json.loads(app_body), json.loads(raw_body)
    if list(app) != list(raw):
        raise RuntimeError(
            f"the raw ceiling's fields {list(raw)} differ from the app's {list(app)}"
        )

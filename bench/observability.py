"""The cost of metrics and logging (issue 20): the list endpoint against the same build with them
switched off, side by side in each round; and GET /api/me, the lightest signed-in request, where
a fixed cost per request weighs most.

On: METRICS_ENABLED (every request counted, /metrics scraped every SCRAPE_EVERY seconds as
Prometheus would), LOG_LEVEL=INFO and LOG_FORMAT=json (one access line per request, written to
a file). Off: METRICS_ENABLED=false and LOG_LEVEL=WARNING, so no access line is written.

Three figures each: requests per second under wrk (what the goal names, and what a shared
machine's load moves most), the server's CPU time per request in those runs, and instructions
per request counted by callgrind (`bench.instructions`), which no other load can move.
"""

import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from statistics import median

from bench import items_data
from bench.harness import (
    Load,
    Series,
    Server,
    dataset_database,
    environment,
    free_port,
    in_rounds,
    ratio,
    server,
    wrk,
)
from bench.instructions import counted, send
from bench.items import LIST_PATH, demo_in_channel

BUGS = 25_000
CONNECTIONS = 8
SCRAPE_EVERY = 5.0  # seconds; Prometheus' usual interval is 15 s or more
PATHS = {"list": LIST_PATH, "me": "/api/me"}
SWITCHED = {
    "on": {"METRICS_ENABLED": "true", "LOG_LEVEL": "INFO", "LOG_FORMAT": "json"},
    "off": {"METRICS_ENABLED": "false", "LOG_LEVEL": "WARNING"},
}


def title() -> str:
    return (
        f"Metrics and logging on against off, same build: {LIST_PATH} over {BUGS:,} bugs and "
        f"GET /api/me, {CONNECTIONS} connections, /metrics scraped every {SCRAPE_EVERY:g} s"
    )


def measure(kind: str) -> dict[str, object]:
    data = items_data.dataset(BUGS, 0, name="observability")
    with tempfile.TemporaryDirectory() as folder, dataset_database(kind, Path(folder), data) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        headers = demo_in_channel(env)
        results: dict[str, object] = {}
        with ExitStack() as servers:
            apps: dict[str, Server] = {}
            for name, switched in SWITCHED.items():
                log = servers.enter_context((Path(folder) / f"{name}.log").open("wb"))
                port = free_port()
                command, app_env = [sys.executable, "app.py"], {**env, **switched}
                apps[name] = servers.enter_context(
                    server(command, {**app_env, "PORT": str(port)}, port, stderr=log)
                )
            cpu: dict[str, list[float]] = {}
            runs = {
                f"{what}_{name}": _load(
                    apps[name], path, headers, cpu.setdefault(f"{what}_{name}", [])
                )
                for what, path in PATHS.items()
                for name in SWITCHED
            }
            with _scraped(apps["on"].base + "/metrics"):
                results.update(in_rounds(runs))
            results.update({f"cpu_{run}": median(seconds) for run, seconds in cpu.items()})
        lines = (Path(folder) / "on.log").read_bytes().splitlines()
        results["bytes_per_line"] = sum(map(len, lines)) / max(len(lines), 1)
        for what, path in PATHS.items():
            for name, switched in SWITCHED.items():
                # No worker: its turns would land in some counts and not in others.
                quiet = {**env, **switched, "JOBS_POLL_SECONDS": "0"}
                results[f"instructions_{what}_{name}"] = _instructions(
                    quiet, Path(folder) / f"{what}-{name}", path, headers
                )
        return results


def _load(app: Server, path: str, headers: dict[str, str], cpu: list[float]) -> Callable[[], Load]:
    """A wrk run against `app`, which also keeps the server's CPU seconds per request."""

    def run() -> Load:
        started, before = time.monotonic(), app.cpu_seconds()
        load = wrk(app.base + path, headers=headers, connections=CONNECTIONS)
        requests = load.requests_per_second * (time.monotonic() - started)
        cpu.append((app.cpu_seconds() - before) / requests)
        return load

    return run


def _instructions(env: dict[str, str], out: Path, path: str, headers: dict[str, str]) -> float:
    with (out.with_suffix(".log")).open("wb") as log:
        return counted(
            lambda _port: [sys.executable, "app.py"],
            env,
            out,
            lambda base: send(base + path, headers),
            stderr=log,
        )


@contextmanager
def _scraped(url: str) -> Iterator[None]:
    """Scrape `url` every SCRAPE_EVERY seconds while the block runs."""
    stop = threading.Event()

    def scrape() -> None:
        while not stop.wait(SCRAPE_EVERY):
            urllib.request.urlopen(url, timeout=10).read()

    thread = threading.Thread(target=scrape, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def report(kind: str, results: dict[str, object]) -> list[str]:
    lines = []
    for what in PATHS:
        on, off = results[f"{what}_on"], results[f"{what}_off"]
        cpu_on, cpu_off = results[f"cpu_{what}_on"], results[f"cpu_{what}_off"]
        ins_on, ins_off = results[f"instructions_{what}_on"], results[f"instructions_{what}_off"]
        assert isinstance(on, Series) and isinstance(off, Series)
        assert isinstance(cpu_on, float) and isinstance(cpu_off, float)
        assert isinstance(ins_on, float) and isinstance(ins_off, float)
        lines.append(
            f"{kind:10} {what:5} req/s on {on.requests_per_second:6.0f} off "
            f"{off.requests_per_second:6.0f} on/off {ratio(on, off, '.1%')}"
            f" | cpu µs on {cpu_on * 1e6:5.0f} off {cpu_off * 1e6:5.0f}"
            f" ({cpu_on / cpu_off - 1:+.1%})"
            f" | M instructions on {ins_on:5.2f} off {ins_off:5.2f} ({ins_on / ins_off - 1:+.1%})"
        )
    lines.append(f"{kind:10} an access line is {results['bytes_per_line']:.0f} bytes")
    return lines

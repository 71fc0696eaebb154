"""Issue 14 §1: one member floods the app with the heaviest list filter the limits accept, over
the items benchmark's 100k bugs, from 16 connections; meanwhile a second client measures
`/healthz` and another member's one-bug details. Each figure is printed beside the same figure
measured idle in the same run (the machine's own ceiling for it)."""

import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.client import HTTPConnection
from pathlib import Path

from bench import items, items_data
from bench.harness import dataset_database, environment, free_port, run_cli, server

FLOOD_CONNECTIONS = 16
SAMPLES = 400  # sequential requests of each kind measured idle
FLOOD_S = 15  # how long they are measured under the flood: lists past the bound end in 5 s
# 80 substring searches joined by `or`: the most work a 2,048-character $filter can ask for.
HEAVIEST = " or ".join(f"contains(name,'zq{n:02}')" for n in range(80))
FLOOD_PATH = "/odata/bugs?" + urllib.parse.urlencode({"$filter": HEAVIEST})
OTHER = "bench.pressure.other@demo.example"


@dataclass(frozen=True)
class Latencies:
    healthz: list[float]
    details: list[float]


@dataclass(frozen=True)
class Flood:
    requests: int
    refused: int  # 429: over the member's share
    timed_out: int  # 503: past the statement bound


def measure(kind: str) -> dict[str, object]:
    data = items_data.dataset(items.BUGS, items.ITEMS)
    with (
        tempfile.TemporaryDirectory() as folder,
        dataset_database(kind, Path(folder), data) as url,
        ExitStack() as servers,
    ):
        # The default cap on lists in flight: the flood meets it, as a real one would.
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false", LISTS_IN_FLIGHT="4")
        flooder = items.demo_in_channel(env)
        other = _other_member(env, flooder)
        port = free_port()
        app = servers.enter_context(
            server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
        )
        host = app.base.removeprefix("http://")
        bug = _first_bug(host, other)
        idle = _sample(host, other, bug, lambda count, _started: count < SAMPLES)
        with _flooding(app.base, flooder) as outcome:
            time.sleep(1)  # the flood's requests are running
            loaded = _sample(
                host, other, bug, lambda _count, started: time.monotonic() - started < FLOOD_S
            )
        return {"idle": idle, "loaded": loaded, "flood": outcome[0]}


def _other_member(env: dict[str, str], flooder: dict[str, str]) -> dict[str, str]:
    """A second member of the demo team, signed in: whose details are measured."""
    object_id = "00000000-0000-0000-0003-000000000001"
    run_cli(env, "admin", "user", "add", "--id", object_id, "--upn", OTHER, "--name", "Other")
    run_cli(env, "admin", "member", "add", "--team-id", flooder["x-svc-teamid"], "--user", OTHER)
    cookie = json.loads(run_cli(env, "admin", "session", "create", "--user", OTHER))
    return {**flooder, "Cookie": f"graphNodeCookie={cookie['cookie']}"}


def _first_bug(host: str, headers: dict[str, str]) -> str:
    connection = HTTPConnection(host, timeout=60)
    connection.request("GET", "/odata/bugs?$top=1&$select=_id&$count=false", headers=headers)
    return str(json.loads(connection.getresponse().read())["value"][0]["_id"])


def _sample(
    host: str, headers: dict[str, str], bug: str, more: Callable[[int, float], bool]
) -> Latencies:
    """Each request in turn on one keep-alive connection, while `more(pairs so far, start)`
    holds: milliseconds each."""
    connection = HTTPConnection(host, timeout=60)
    healthz: list[float] = []
    details: list[float] = []
    started = time.monotonic()
    while more(len(healthz), started):
        for path, into in (("/healthz", healthz), (f"/api/bugs/{bug}/details", details)):
            sent = time.perf_counter()
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"{path} answered {response.status}")
            into.append((time.perf_counter() - sent) * 1000)
    return Latencies(healthz, details)


@contextmanager
def _flooding(base: str, headers: dict[str, str]) -> Iterator[list[Flood]]:
    """wrk sending the heaviest list from 16 connections while the block runs; what it saw,
    into the yielded list once it ends."""
    command = ["wrk", "-t2", f"-c{FLOOD_CONNECTIONS}", "-d600s", "--timeout", "30s"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    script = Path(__file__).with_name("count_statuses.lua")
    process = subprocess.Popen(
        [*command, "-s", str(script), base + FLOOD_PATH], stdout=subprocess.PIPE, text=True
    )
    outcome: list[Flood] = []
    try:
        yield outcome
    finally:
        process.send_signal(2)  # wrk reports on SIGINT
        output, _ = process.communicate(timeout=60)
        counts = dict(line.split()[1:] for line in output.splitlines() if line.startswith("status"))
        outcome.append(
            Flood(
                requests=sum(int(n) for n in counts.values()),
                refused=int(counts.get("429", 0)),
                timed_out=int(counts.get("503", 0)),
            )
        )


def _p(values: list[float], percentile: int) -> float:
    return statistics.quantiles(values, n=100)[percentile - 1]


def report(kind: str, results: dict[str, object]) -> list[str]:
    idle, loaded, flood = results["idle"], results["loaded"], results["flood"]
    assert isinstance(idle, Latencies) and isinstance(loaded, Latencies)
    assert isinstance(flood, Flood)
    lines = []
    for name, goal in (("healthz", "p99 <= 20 ms"), ("details", "p99 <= 10 x idle p99")):
        quiet, busy = getattr(idle, name), getattr(loaded, name)
        lines.append(
            f"{name:8} {kind:10} idle p50 {_p(quiet, 50):6.2f} p99 {_p(quiet, 99):6.2f} ms"
            f"  flooded p50 {_p(busy, 50):6.2f} p99 {_p(busy, 99):7.2f} ms"
            f"  p99 x{_p(busy, 99) / _p(quiet, 99):5.1f}  ({goal})"
        )
    lines.append(
        f"flood    {kind:10} {flood.requests} answers: {flood.refused} x 429 (over the share),"
        f" {flood.timed_out} x 503 (past the statement bound),"
        f" {flood.requests - flood.refused - flood.timed_out} lists"
    )
    return lines

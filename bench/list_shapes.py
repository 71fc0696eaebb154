"""List shapes (issue 14 §5, issue 31): the lists people ask for over 100k bugs in one channel
(every sort and filter the channel tab offers among them), each one's single-client p50 beside
the benchmarked shape's and the round's fastest shape's, the raw driver's time for its page
statement (`list_shapes_raw`), and the bare handler's; then creates and 1000-id bulk edits of
statuses and of priorities, with their CPU, to weigh what the list indexes cost.

One client, one request at a time over a kept-alive connection: a p50 is what one person waits,
not a throughput. Each round measures every shape once, in turn; a shape's figure is the median
of its rounds, its ratio the median of the rounds' ratios to the benchmarked shape.
"""

import http.client
import json
import os
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from bench import items_data, list_shapes_raw
from bench.harness import (
    ROUNDS,
    Server,
    _psql_value,
    free_port,
    print_reports,
    server,
)
from bench.items import BUGS, CREATED, LIST_QUERY, app_on

# How long each shape is asked for, per round, after a few requests to warm it.
SECONDS_PER_SHAPE = 0.7
WARM_UP = 3
MIN_REQUESTS = 5
CREATES = 200
BULK_IDS, BULK_RUNS = 1000, 10
BENCHMARKED = "benchmarked: status eq + dueDate desc + $count"
# What a list of people asks for: each most-used sort both ways, the common filters and pairs
# of them, pages by next link, and every sort and filter the channel tab's list offers.
SHAPES: dict[str, dict[str, str]] = {
    BENCHMARKED: LIST_QUERY,
    "internalId desc": {"$orderby": "internalId desc"},
    "internalId asc": {"$orderby": "internalId asc"},
    "createdAt desc (default)": {},
    "createdAt asc": {"$orderby": "createdAt asc"},
    "updatedAt desc": {"$orderby": "updatedAt desc"},
    "updatedAt asc": {"$orderby": "updatedAt asc"},
    "dueDate asc": {"$orderby": "dueDate asc"},
    "priority eq + internalId desc": {
        "$filter": "priority eq 'High'",
        "$orderby": "internalId desc",
    },
    "severity eq": {"$filter": "severity eq 'Critical'"},
    "assignee (email)": {"$filter": "assignedTo/any(u: u/email eq 'bench.items.3@demo.example')"},
    "name contains (0.4 %)": {"$filter": "contains(name, '123')"},
    "dueDate range": {
        "$filter": "dueDate ge 2026-11-10T00:00:00Z and dueDate lt 2026-11-20T00:00:00Z",
        "$orderby": "dueDate asc",
    },
    "createdAt range": {
        "$filter": "createdAt ge 2026-09-01T00:00:00Z and createdAt lt 2026-09-15T00:00:00Z",
    },
    "status eq + priority eq": {
        "$filter": "status eq 'In Progress' and priority eq 'High'",
        "$orderby": "dueDate desc",
    },
    "priority eq + severity eq": {
        "$filter": "priority eq 'Urgent' and severity eq 'Critical'",
        "$orderby": "updatedAt desc",
    },
    # (Generated assignees follow the numbers, as statuses do: this pair matches 5 %.)
    "status eq + assignee": {
        "$filter": "status eq 'In Progress' and assignedTo/any(u: u/email eq "
        "'bench.items.5@demo.example')",
    },
    "updatedAt desc, 20th page by next link": {"$orderby": "updatedAt desc"},  # followed below
    # The channel tab's sorts (`bot/tabs/src/list.js`: each both ways) and filters, as it
    # writes them; its "now" is fixed here, inside the generated due dates.
    "status asc": {"$orderby": "status asc"},
    "status desc": {"$orderby": "status desc"},
    "priority asc": {"$orderby": "priority asc"},
    "priority desc": {"$orderby": "priority desc"},
    "severity asc": {"$orderby": "severity asc"},
    "severity desc": {"$orderby": "severity desc"},
    "name asc": {"$orderby": "name asc"},
    "name desc": {"$orderby": "name desc"},
    "dueDate desc": {"$orderby": "dueDate desc"},
    "status asc, 20th page by next link": {"$orderby": "status asc"},
    "priority desc, 20th page by next link": {"$orderby": "priority desc"},
    "status eq + priority asc": {"$filter": "status eq 'In Progress'", "$orderby": "priority"},
    "priority eq + status asc": {"$filter": "priority eq 'High'", "$orderby": "status"},
    "tab: assignee (_id)": {"$filter": "assignedTo/any(u: u/_id eq '{user}')"},
    "tab: assignee (_id) + priority asc": {
        "$filter": "assignedTo/any(u: u/_id eq '{user}')",
        "$orderby": "priority",
    },
    "tab: nobody assigned": {"$filter": "not assignedTo/any()"},
    "tab: overdue": {
        "$filter": "dueDate lt 2026-11-20T00:00:00.000Z and completedDate eq null",
    },
    "tab: due this week": {
        "$filter": "dueDate ge 2026-11-20T00:00:00.000Z and dueDate lt 2026-11-27T00:00:00.000Z",
    },
    "tab: no due date": {"$filter": "dueDate eq null"},
    "tab: text (0.4 %)": {"$filter": "(contains(name,'123') or contains(body,'123'))"},
    "tab: text + status asc": {
        "$filter": "(contains(name,'123') or contains(body,'123'))",
        "$orderby": "status",
    },
    # Sorts the tabs do not offer: a top-N sort of the channel's rows.
    "statusValue asc (not offered)": {"$orderby": "statusValue asc"},
    "startDate desc (not offered)": {"$orderby": "startDate desc"},
}
# Text and assignee filters' goal is 10 x the benchmarked shape, the others' 3 x.
LOOSER_GOAL = ("assignee", "text", "contains")
ASSIGNEE_EMAIL = "bench.items.3@demo.example"
NEXT_LINK_DEPTH = 20
# Each bulk edit sets the value the last did not, so every edit changes every row.
STATUSES, PRIORITIES = ("Completed", "In Progress"), ("Low", "Urgent")


class TimedOut(RuntimeError):
    """The app answered 503: the statement ran past its time limit."""


@dataclass(frozen=True)
class Client:
    """One kept-alive connection to a server, with the demo user's headers."""

    connection: http.client.HTTPConnection
    headers: dict[str, str]

    def ask(self, method: str, path: str, body: object = None) -> bytes:
        data = None if body is None else json.dumps(body).encode()
        headers = self.headers | ({"Content-Type": "application/json"} if data else {})
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionError):
            # Idle past the server's keep-alive while the raw ceilings ran: connect again.
            self.connection.close()
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        answer = response.read()
        if response.status == 503:
            raise TimedOut(path)
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {answer[:200]!r}")
        return answer

    def p50_ms(self, path: str) -> float:
        """The median latency of `path`, asked again and again for SECONDS_PER_SHAPE."""
        for _ in range(WARM_UP):
            self.ask("GET", path)
        times: list[float] = []
        ends = time.perf_counter() + SECONDS_PER_SHAPE
        while len(times) < MIN_REQUESTS or time.perf_counter() < ends:
            started = time.perf_counter()
            self.ask("GET", path)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)


def _p50_or_timed_out(client: Client, path: str) -> float:
    try:
        return client.p50_ms(path)
    except TimedOut:
        return float("inf")


def connect(base: str, headers: dict[str, str]) -> Client:
    host, port = base.removeprefix("http://").split(":")
    return Client(http.client.HTTPConnection(host, int(port), timeout=120), headers)


def list_path(query: dict[str, str]) -> str:
    return "/odata/bugs?" + urllib.parse.urlencode({"$top": "50", **query}, quote_via=_quote)


def _quote(
    text: str, safe: str = "", encoding: str | None = None, errors: str | None = None
) -> str:
    return urllib.parse.quote(text, safe="$,", encoding=encoding, errors=errors)


def _paths(client: Client) -> dict[str, str]:
    """Each shape's path; a next-link shape's is its first page's link followed that deep."""
    user = _user_id(client, ASSIGNEE_EMAIL)
    paths = {
        name: list_path({option: text.replace("{user}", user) for option, text in query.items()})
        for name, query in SHAPES.items()
    }
    for name in list(paths):
        if "page by next link" not in name:
            continue
        try:
            for _ in range(NEXT_LINK_DEPTH - 1):
                link = json.loads(client.ask("GET", paths[name]))["@odata.nextLink"]
                paths[name] = link[link.index("/odata/") :]
        except TimedOut:
            del paths[name]  # reported as timed out
    return paths


def _user_id(client: Client, email: str) -> str:
    query = {"$filter": f"assignedTo/any(u: u/email eq '{email}')", "$select": "assignedTo"}
    (item,) = json.loads(client.ask("GET", list_path({**query, "$top": "1"})))["value"]
    return next(user["_id"] for user in item["assignedTo"] if user["email"] == email)


def measure(kind: str) -> dict[str, object]:
    with app_on(kind, items_data.dataset(BUGS, 0, name="shapes")) as served:
        app, headers, url, env = served.app, served.headers, served.url, served.env
        client = connect(app.base, headers)
        paths = _paths(client)
        first_ms = {}
        for name, path in paths.items():  # the first ask: statement built, count not cached
            started = time.perf_counter()
            try:
                client.ask("GET", path)
            except TimedOut:
                pass
            first_ms[name] = (time.perf_counter() - started) * 1000
        page_file = served.folder / "page.json"
        page_file.write_bytes(client.ask("GET", paths[BENCHMARKED]))
        port = free_port()
        bare = served.servers.enter_context(
            server(
                [sys.executable, "-m", "bench.bare_server", str(port), str(page_file)], env, port
            )
        )
        bare_client = connect(bare.base, headers)
        rounds: list[dict[str, float]] = []
        channel = headers["x-svc-channelId"]
        for _ in range(ROUNDS):
            measured = {name: _p50_or_timed_out(client, path) for name, path in paths.items()}
            measured["bare"] = bare_client.p50_ms(paths[BENCHMARKED])
            raw = list_shapes_raw.p50s_ms(url, channel, paths, SECONDS_PER_SHAPE)
            measured.update({f"raw {name}": p50 for name, p50 in raw.items()})
            rounds.append(measured)
        return {"rounds": rounds, "first_ms": first_ms, **_writes(client, app, url)}


def _writes(client: Client, app: Server, url: str) -> dict[str, float]:
    """A create's p50 (one at a time), the median of BULK_RUNS 1000-id bulk edits of statuses
    and of priorities, and the CPU time each took in the app and its PostgreSQL backends, which
    others' load disturbs least (the wall clock waits for the cores too)."""
    cpu = CpuTime(app.pid, url)
    times = []
    for _ in range(CREATES):
        started = time.perf_counter()
        client.ask("POST", "/odata/bugs", CREATED)
        times.append((time.perf_counter() - started) * 1000)
    create_cpu = cpu.lap() / CREATES
    everything = client.ask("GET", list_path({"$top": str(BULK_IDS), "$select": "_id"}))
    ids = [row["_id"] for row in json.loads(everything)["value"]]
    cpu.lap()
    results = {"create_p50_ms": statistics.median(times), "create_cpu_ms": create_cpu}
    # An edit moves each row's entries in the indexes on what it sets: each field on its own.
    for field, values in (("status", STATUSES), ("priority", PRIORITIES)):
        bulk = []
        for run in range(BULK_RUNS):
            started = time.perf_counter()
            client.ask("POST", "/api/bulk/bug", {"ids": ids, field: values[run % 2]})
            bulk.append((time.perf_counter() - started) * 1000)
        results[f"bulk_{field}_ms"] = statistics.median(bulk)
        results[f"bulk_{field}_cpu_ms"] = cpu.lap() / BULK_RUNS
    return results


class CpuTime:
    """User and system CPU time of the app and, on PostgreSQL, of its database's backends."""

    def __init__(self, pid: int, url: str) -> None:
        self.pid, self.url = pid, url
        self.last = self._total()

    def lap(self) -> float:
        """Milliseconds of CPU since the last lap."""
        now = self._total()
        spent, self.last = now - self.last, now
        return spent

    def _total(self) -> float:
        pids = [self.pid]
        if not self.url.startswith("sqlite"):
            database = self.url.rsplit("/", 1)[1]
            backends = _psql_value(
                "SELECT string_agg(pid::text, ' ') FROM pg_stat_activity "
                f"WHERE datname = '{database}' AND backend_type = 'client backend'"
            )
            pids += [int(pid) for pid in backends.split()]
        ticks = 0
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def report(kind: str, results: dict[str, object]) -> list[str]:
    rounds, first_ms = results["rounds"], results["first_ms"]
    assert isinstance(rounds, list) and isinstance(first_ms, dict)
    lines = [
        f"{kind}: p50 ms; x the benchmarked shape (median of {len(rounds)} rounds' ratios, "
        "range), x the round's fastest shape; the raw driver's p50 of the page statement"
    ]
    benchmarked = statistics.median(r[BENCHMARKED] for r in rounds)
    fastest = [min(r[name] for name in SHAPES if name in r) for r in rounds]
    for name in SHAPES:
        if name not in first_ms:
            lines.append(f"  {name:40} timed out (503) reaching the page")
            continue
        p50 = statistics.median(r[name] for r in rounds)
        ratios = sorted(r[name] / r[BENCHMARKED] for r in rounds)
        to_fastest = statistics.median(r[name] / f for r, f in zip(rounds, fastest, strict=True))
        raw = statistics.median(r[f"raw {name}"] for r in rounds)
        goal = 10 if any(word in name for word in LOOSER_GOAL) else 3
        within = "ok" if statistics.median(ratios) <= goal else f"OVER {goal}x"
        lines.append(
            f"  {name:40} {p50:8.2f} ms  vs {benchmarked:6.2f}"
            f"  x{statistics.median(ratios):6.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f}) {within:8}"
            f"  x{to_fastest:6.2f} fastest  raw {raw:7.2f} ms  first ask {first_ms[name]:7.1f} ms"
        )
    bare = statistics.median(r["bare"] for r in rounds)
    lines.append(f"  {'bare handler, the benchmarked page':40} {bare:8.2f} ms")
    lines.append(
        f"  writes: create p50 {results['create_p50_ms']:.2f} ms (one at a time), CPU (app and "
        f"database) {results['create_cpu_ms']:.2f} ms"
    )
    for field in ("status", "priority"):
        lines.append(
            f"  bulk edit of {BULK_IDS} {field}: median {results[f'bulk_{field}_ms']:.0f} ms "
            f"({BULK_RUNS} runs), CPU {results[f'bulk_{field}_cpu_ms']:.0f} ms"
        )
    return lines


if __name__ == "__main__":
    print_reports(measure, report, sys.argv[1:])

"""Items: create, list (filter + order + top 50 + exact count over 100k bugs), 1000-id bulk edit."""

import base64
import json
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench import items_data
from bench.harness import (
    Dataset,
    Series,
    Server,
    dataset_database,
    environment,
    free_port,
    in_rounds,
    ratio,
    run_cli,
    same_rows,
    same_shape,
    server,
    wrk,
)

BUGS = 100_000
ITEMS = 1_000_000  # in the database: 20 channels
LIST_QUERY = {
    "$filter": "status eq 'In Progress'",
    "$orderby": "dueDate desc",
    "$top": "50",
    "$count": "true",
}
# What post_bug.lua creates.
CREATED = {"name": "Created by wrk", "priority": "High", "dueDate": "2026-12-01"}
LIST_PATH = "/odata/bugs?" + urllib.parse.urlencode(LIST_QUERY, quote_via=urllib.parse.quote)
BULK_IDS = 1000
BULK_RUNS = 10


def measure(kind: str) -> dict[str, object]:
    # The app and its ceilings serve side by side, each its own process, and are loaded in
    # turn (`in_rounds`); the bare ceilings answer what the app answered.
    with app_on(kind, items_data.dataset(BUGS, ITEMS)) as served:
        app, headers, env, servers = served.app, served.headers, served.env, served.servers
        posting = {**headers, "Content-Type": "application/json"}
        post_bug = Path(__file__).with_name("post_bug.lua")
        page = _request(app.base, "GET", LIST_PATH, headers)
        created = _request(app.base, "POST", "/odata/bugs", headers, CREATED)
        port = free_port()
        raw = servers.enter_context(
            server(
                [sys.executable, "-m", "bench.raw_items_server", str(port), served.url], env, port
            )
        )
        same_rows(
            _request(app.base, "GET", LIST_PATH, headers),
            _request(raw.base, "GET", LIST_PATH, headers),
        )
        same_shape(created, _request(raw.base, "POST", "/odata/bugs", headers, CREATED))
        bare_list, bare_create = (
            servers.enter_context(_bare(env, served.folder / name, body))
            for name, body in (("page.json", page), ("created.json", created))
        )
        results: dict[str, object] = {}
        results.update(
            in_rounds(
                {
                    "list": lambda: wrk(app.base + LIST_PATH, headers=headers, connections=8),
                    "list_raw": lambda: wrk(raw.base + LIST_PATH, headers=headers, connections=8),
                    "list_bare": lambda: wrk(
                        bare_list.base + LIST_PATH, headers=headers, connections=8
                    ),
                }
            )
        )
        results["rss_mb"] = app.rss_mb()
        first, last = _first_and_last_pages(app.base, headers)
        results.update(
            in_rounds(
                {
                    "first_page": lambda: wrk(app.base + first, headers=headers, connections=8),
                    "last_page": lambda: wrk(app.base + last, headers=headers, connections=8),
                }
            )
        )
        results.update(
            in_rounds(
                {
                    "create": lambda: wrk(
                        app.base + "/odata/bugs", headers=posting, connections=16, script=post_bug
                    ),
                    "create_raw": lambda: wrk(
                        raw.base + "/odata/bugs", headers=posting, connections=16, script=post_bug
                    ),
                    # The bare ceiling answers GET with the created bug's bytes.
                    "create_bare": lambda: wrk(
                        bare_create.base + "/odata/bugs", headers=headers, connections=16
                    ),
                }
            )
        )
        ids = [
            row["_id"]
            for row in json.loads(
                _request(app.base, "GET", "/odata/bugs?$top=1000&$select=_id", headers)
            )["value"]
        ]
        results["bulk_ms"], results["bulk_raw_ms"] = _bulk_times(
            app.base, raw.base, headers, ids[:BULK_IDS]
        )
        return results


@dataclass(frozen=True)
class Served:
    """The app in its own process on a dataset, and what a bench needs beside it."""

    app: Server
    headers: dict[str, str]  # the demo user's, in the demo channel
    folder: Path  # scratch space, gone with the block
    url: str  # the database's
    env: dict[str, str]  # the app's environment, for the ceilings' processes
    servers: ExitStack  # more processes served beside the app, stopped with it


@contextmanager
def app_on(kind: str, data: Dataset) -> Iterator[Served]:
    """The app serving `data` in a database of `kind` (sqlite or postgresql)."""
    with (
        tempfile.TemporaryDirectory() as folder,
        dataset_database(kind, Path(folder), data) as url,
        ExitStack() as servers,
    ):
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        headers = demo_in_channel(env)
        port = free_port()
        app = servers.enter_context(
            server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
        )
        yield Served(app, headers, Path(folder), url, env, servers)


def demo_in_channel(env: dict[str, str]) -> dict[str, str]:
    """The headers of the demo user in the demo channel. The demo seed is in every dataset
    already; this signs in afresh."""
    demo = json.loads(run_cli(env, "admin", "demo"))
    return {
        "Cookie": f"graphNodeCookie={demo['cookie']}",
        "x-svc-teamid": demo["teamId"],
        "x-svc-channelId": demo["channelId"],
    }


@contextmanager
def _bare(env: dict[str, str], body_file: Path, body: bytes) -> Iterator[Server]:
    body_file.write_bytes(body)
    port = free_port()
    command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
    with server(command, env, port) as running:
        yield running


def _first_and_last_pages(base: str, headers: dict[str, str]) -> tuple[str, str]:
    """The first page of all bugs by due date, and the last page of those with one as its next
    link asks for it. The bugs without a due date come after them (going down, nulls last):
    pages alike in content compare paging."""
    order = {"$orderby": "dueDate desc", "$top": "50"}
    first = "/odata/bugs?" + urllib.parse.urlencode(order, quote_via=urllib.parse.quote)
    # The row just before that page: in the reverse order (ties by id going up), the 51st dated.
    reverse = {
        "$filter": "dueDate ne null",
        "$orderby": "dueDate asc,_id asc",
        "$top": "51",
        "$select": "dueDate",
    }
    query = urllib.parse.urlencode(reverse, quote_via=urllib.parse.quote)
    before_last = json.loads(_request(base, "GET", f"/odata/bugs?{query}", headers))["value"][-1]
    due = before_last["dueDate"].replace("Z", "+00:00")
    token = base64.urlsafe_b64encode(json.dumps([due, before_last["_id"]]).encode()).decode()
    last_query = {**order, "$skiptoken": token.rstrip("=")}
    last = "/odata/bugs?" + urllib.parse.urlencode(last_query, quote_via=urllib.parse.quote)
    rows = json.loads(_request(base, "GET", last, headers))["value"]
    assert len(rows) == 50 and all(row["dueDate"] for row in rows), "not the last dated page"
    return first, last


def _bulk_times(
    app: str, raw: str, headers: dict[str, str], ids: list[str]
) -> tuple[list[float], list[float]]:
    """Wall time of each 1000-id bulk edit over loopback, the app's and the raw ceiling's in
    turn; each sets the status the other did not, so every edit changes every row."""
    times: tuple[list[float], list[float]] = ([], [])
    for run in range(BULK_RUNS * 2):
        status = "Completed" if run % 2 == 0 else "In Progress"
        started = time.perf_counter()
        _request(
            (app, raw)[run % 2], "POST", "/api/bulk/bug", headers, {"ids": ids, "status": status}
        )
        times[run % 2].append((time.perf_counter() - started) * 1000)
    return times


def _request(
    base: str, method: str, path: str, headers: dict[str, str], body: object = None
) -> bytes:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={**headers, **({"Content-Type": "application/json"} if data else {})},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def report(kind: str, results: dict[str, object]) -> list[str]:
    lines = []
    for name in ("list", "create"):
        app, raw, bare = results[name], results[f"{name}_raw"], results[f"{name}_bare"]
        assert isinstance(app, Series) and isinstance(raw, Series) and isinstance(bare, Series)
        lines.append(
            f"{name:8} {kind:10} {app.requests_per_second:7.0f} req/s  p99 {app.p99_ms:6.1f} ms"
            f"  raw {raw.requests_per_second:6.0f} (p99 {raw.p99_ms:.1f} ms)"
            f"  bare {bare.requests_per_second:6.0f}"
            f"  app/raw {ratio(app, raw)}  app/bare {ratio(app, bare, '.1%')}"
        )
    lines.append(f"rss      {kind:10} {results['rss_mb']:.0f} MB after the list load")
    first, last = results["first_page"], results["last_page"]
    assert isinstance(first, Series) and isinstance(last, Series)
    lines.append(
        f"paging   {kind:10} first page {first.requests_per_second:6.0f} req/s, last of "
        f"{BUGS // 50:,} {last.requests_per_second:6.0f} req/s: the last costs "
        f"{ratio(first, last, '.2f')} x the first"
    )
    bulk, raw_bulk = results["bulk_ms"], results["bulk_raw_ms"]
    assert isinstance(bulk, list) and isinstance(raw_bulk, list)
    median, raw_median = statistics.median(bulk), statistics.median(raw_bulk)
    lines.append(
        f"bulk     {kind:10} 1000 ids: median {median:6.0f} ms  worst of {len(bulk)} "
        f"{max(bulk):6.0f} ms  raw median {raw_median:6.0f} ms  worst {max(raw_bulk):6.0f} ms"
        f"  raw/app {raw_median / median:4.0%}"
    )
    return lines

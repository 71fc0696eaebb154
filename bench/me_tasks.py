"""GET /api/me/tasks?$top=50 for a member of 200 channels (100k tasks, 2,000 theirs), against the
bare-handler and raw-driver ceilings."""

import json
import sys
import tempfile
import urllib.request
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from bench import me_tasks_data
from bench.harness import (
    Series,
    dataset_database,
    environment,
    free_port,
    in_rounds,
    ratio,
    run_cli,
    same_rows,
    server,
    wrk,
)
from bench.me_tasks_data import MINE, TASKS

CONNECTIONS = 8
PATH = "/api/me/tasks?$top=50"


def measure(kind: str) -> dict[str, Series]:
    data = me_tasks_data.dataset()
    with tempfile.TemporaryDirectory() as folder, dataset_database(kind, Path(folder), data) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        # The demo seed is already there; this signs in afresh.
        demo = json.loads(run_cli(env, "admin", "demo"))
        headers = {
            "Cookie": f"graphNodeCookie={demo['cookie']}",
            "x-svc-entityId": demo["entityId"],
        }
        with ExitStack() as servers:
            port = free_port()
            app = servers.enter_context(
                server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
            )
            body = _get(app.base + PATH, headers)
            page = json.loads(body)
            assert page["@odata.count"] == MINE and len(page["value"]) == 50, page["@odata.count"]
            port = free_port()
            command = [sys.executable, "-m", "bench.raw_me_tasks_server", str(port), url]
            raw = servers.enter_context(server(command, env, port))
            same_rows(body, _get(raw.base + PATH, headers))
            body_file = Path(folder) / "page.json"
            body_file.write_bytes(body)
            port = free_port()
            command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
            bare = servers.enter_context(server(command, env, port))
            return in_rounds(
                {
                    name: partial(
                        wrk, running.base + PATH, headers=headers, connections=CONNECTIONS
                    )
                    for name, running in (("app", app), ("raw", raw), ("bare", bare))
                }
            )


def _get(url: str, headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.read()


def report(kind: str, results: dict[str, Series]) -> str:
    app, raw, bare = results["app"], results["raw"], results["bare"]
    return (
        f"{kind:10} {app.requests_per_second:7.0f} req/s  p99 {app.p99_ms:6.1f} ms"
        f"  raw {raw.requests_per_second:6.0f} (p99 {raw.p99_ms:.1f} ms)"
        f"  bare {bare.requests_per_second:6.0f}"
        f"  app/raw {ratio(app, raw)}  app/bare {ratio(app, bare, '.1%')}"
    )


def title() -> str:
    return (
        f"GET {PATH}: a member of 200 channels, {TASKS:,} tasks, {MINE:,} assigned to them, "
        f"{CONNECTIONS} connections"
    )

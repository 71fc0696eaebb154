"""GET /api/me/tasks?$top=50 for a member of 200 channels (100k tasks, 2,000 theirs), against the
bare-handler and raw-driver ceilings."""

import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from bench import me_tasks_data
from bench.harness import (
    Load,
    dataset_database,
    environment,
    free_port,
    run_cli,
    same_rows,
    server,
    wrk,
)
from bench.me_tasks_data import MINE, TASKS

CONNECTIONS = 8
PATH = "/api/me/tasks?$top=50"


def measure(kind: str) -> dict[str, Load]:
    data = me_tasks_data.dataset()
    with tempfile.TemporaryDirectory() as folder, dataset_database(kind, Path(folder), data) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        # The demo seed is already there; this signs in afresh.
        demo = json.loads(run_cli(env, "admin", "demo"))
        headers = {
            "Cookie": f"graphNodeCookie={demo['cookie']}",
            "x-svc-entityId": demo["entityId"],
        }
        results: dict[str, Load] = {}

        port = free_port()
        with server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port) as running:
            request = urllib.request.Request(running.base + PATH, headers=headers)
            body = urllib.request.urlopen(request, timeout=60).read()
            page = json.loads(body)
            assert page["@odata.count"] == MINE and len(page["value"]) == 50, page["@odata.count"]
            results["app"] = wrk(running.base + PATH, headers=headers, connections=CONNECTIONS)

        body_file = Path(folder) / "page.json"
        body_file.write_bytes(body)
        port = free_port()
        command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
        with server(command, env, port) as running:
            results["bare"] = wrk(running.base + PATH, headers=headers, connections=CONNECTIONS)

        port = free_port()
        command = [sys.executable, "-m", "bench.raw_me_tasks_server", str(port), url]
        with server(command, env, port) as running:
            request = urllib.request.Request(running.base + PATH, headers=headers)
            same_rows(body, urllib.request.urlopen(request, timeout=60).read())
            results["raw"] = wrk(running.base + PATH, headers=headers, connections=CONNECTIONS)
        return results


def report(kind: str, results: dict[str, Load]) -> str:
    app, raw, bare = results["app"], results["raw"], results["bare"]
    return (
        f"{kind:10} {app.requests_per_second:7.0f} req/s  p99 {app.p99_ms:6.1f} ms"
        f"  raw {raw.requests_per_second:6.0f} (p99 {raw.p99_ms:.1f} ms)"
        f"  bare {bare.requests_per_second:6.0f}"
        f"  app/raw {app.requests_per_second / raw.requests_per_second:4.0%}"
        f"  app/bare {app.requests_per_second / bare.requests_per_second:5.1%}"
    )


def title() -> str:
    return (
        f"GET {PATH}: a member of 200 channels, {TASKS:,} tasks, {MINE:,} assigned to them, "
        f"{CONNECTIONS} connections"
    )

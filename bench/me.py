"""GET /api/me: the cost of authenticating a request, against the bare and raw-driver ceilings."""

import json
import sys
import tempfile
import urllib.request
from pathlib import Path

from bench.harness import Load, environment, free_port, run_cli, scratch_database, server, wrk

CONNECTIONS = 8


def measure(kind: str) -> dict[str, Load]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        cookie = json.loads(run_cli(env, "admin", "demo"))["cookie"]
        headers = {"Cookie": f"graphNodeCookie={cookie}"}
        results: dict[str, Load] = {}

        port = free_port()
        with server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port) as running:
            request = urllib.request.Request(f"{running.base}/api/me", headers=headers)
            body = urllib.request.urlopen(request).read()
            results["app"] = wrk(f"{running.base}/api/me", headers=headers, connections=CONNECTIONS)

        body_file = Path(folder) / "body.json"
        body_file.write_bytes(body)
        port = free_port()
        with server(
            [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)], env, port
        ) as running:
            results["bare"] = wrk(
                f"{running.base}/api/me", headers=headers, connections=CONNECTIONS
            )

        port = free_port()
        with server(
            [sys.executable, "-m", "bench.raw_me_server", str(port), url], env, port
        ) as running:
            results["raw"] = wrk(f"{running.base}/api/me", headers=headers, connections=CONNECTIONS)
        return results

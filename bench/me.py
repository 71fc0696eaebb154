"""GET /api/me: the cost of authenticating a request, against the bare and raw-driver ceilings."""

import json
import sys
import tempfile
import urllib.request
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from bench.harness import (
    Series,
    environment,
    free_port,
    in_rounds,
    ratio,
    run_cli,
    scratch_database,
    server,
    wrk,
)

CONNECTIONS = 8


def measure(kind: str) -> dict[str, Series]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        cookie = json.loads(run_cli(env, "admin", "demo"))["cookie"]
        headers = {"Cookie": f"graphNodeCookie={cookie}"}
        with ExitStack() as servers:
            port = free_port()
            app = servers.enter_context(
                server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
            )
            request = urllib.request.Request(f"{app.base}/api/me", headers=headers)
            body = urllib.request.urlopen(request).read()
            body_file = Path(folder) / "body.json"
            body_file.write_bytes(body)
            port = free_port()
            command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
            bare = servers.enter_context(server(command, env, port))
            port = free_port()
            command = [sys.executable, "-m", "bench.raw_me_server", str(port), url]
            raw = servers.enter_context(server(command, env, port))
            return in_rounds(
                {
                    name: partial(
                        wrk, f"{running.base}/api/me", headers=headers, connections=CONNECTIONS
                    )
                    for name, running in (("app", app), ("raw", raw), ("bare", bare))
                }
            )


def report(kind: str, results: dict[str, Series]) -> str:
    app, raw, bare = results["app"], results["raw"], results["bare"]
    return (
        f"{kind:10} {app.requests_per_second:7.0f} req/s  p99 {app.p99_ms:6.1f} ms"
        f"  raw {raw.requests_per_second:6.0f}  bare {bare.requests_per_second:6.0f}"
        f"  app/raw {ratio(app, raw)}  app/bare {ratio(app, bare)}"
    )

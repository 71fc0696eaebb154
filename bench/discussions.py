"""GET /api/bugs/{id}/messages?$top=50 of a 5,000-reply thread, against the bare-handler and
raw-driver ceilings, same run."""

import json
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from bench import discussions_data
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

CONNECTIONS = 8


def title() -> str:
    return (
        f"A discussion of {discussions_data.REPLIES:,} replies: GET /api/bugs/{{id}}/messages"
        f"?$top=50, {CONNECTIONS} connections"
    )


def measure(kind: str) -> dict[str, Series]:
    data = discussions_data.dataset()
    with tempfile.TemporaryDirectory() as folder, dataset_database(kind, Path(folder), data) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        demo = json.loads(run_cli(env, "admin", "demo"))
        headers = {
            "Cookie": f"graphNodeCookie={demo['cookie']}",
            "x-svc-teamid": demo["teamId"],
            "x-svc-channelId": demo["channelId"],
        }
        with ExitStack() as servers:
            port = free_port()
            app = servers.enter_context(
                server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
            )
            # The discussed bug, numbered after the demo's own.
            number = discussions_data.FIRST_NUMBER + 1
            query = urllib.parse.urlencode({"$top": "1", "$filter": f"internalId eq {number}"})
            listed = json.loads(_get(f"{app.base}/api/bugs?{query}", headers))
            path = f"/api/bugs/{listed['value'][0]['_id']}/messages?$top=50"
            body = _get(app.base + path, headers)
            page = json.loads(body)
            assert page["@odata.count"] == discussions_data.REPLIES + 1, page["@odata.count"]
            port = free_port()
            command = [sys.executable, "-m", "bench.raw_discussion_server", str(port), url]
            raw = servers.enter_context(server(command, env, port))
            same_rows(body, _get(raw.base + path, headers))
            body_file = Path(folder) / "page.json"
            body_file.write_bytes(body)
            port = free_port()
            command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
            bare = servers.enter_context(server(command, env, port))
            return in_rounds(
                {
                    name: partial(
                        wrk, running.base + path, headers=headers, connections=CONNECTIONS
                    )
                    for name, running in (("app", app), ("raw", raw), ("bare", bare))
                }
            )


def _get(url: str, headers: dict[str, str]) -> bytes:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read()
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{url}: {error.code} {error.read()[:300]!r}") from None


def report(kind: str, results: dict[str, Series]) -> str:
    app, raw, bare = results["app"], results["raw"], results["bare"]
    return (
        f"{kind:10} {app.requests_per_second:7.0f} req/s  p99 {app.p99_ms:6.1f} ms"
        f"  raw {raw.requests_per_second:6.0f} (p99 {raw.p99_ms:.1f} ms)"
        f"  bare {bare.requests_per_second:6.0f}"
        f"  app/raw {ratio(app, raw)}  app/bare {ratio(app, bare, '.1%')}"
    )

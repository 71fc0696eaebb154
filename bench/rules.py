"""The cost of matching rules: creates per second in a channel with 5 enabled rules whose
conditions do not match, against creates in a channel of the same app with none, the worker
running (each create's event is matched at once, in the same process)."""

import json
import sys
import tempfile
import urllib.request
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

RULES = 5
CONNECTIONS = 16
RULED_CHANNEL = "19:bench-rules@thread.tacv2"
# A literal global address: saving the rule needs no lookup, and nothing is ever sent to it.
HOOK = "https://93.184.215.14/hooks/bench"
# Each rule looks at a different field; none holds for what post_bug.lua creates.
CONDITIONS = [
    {"field": "name", "ops": "Contains", "value": "outage"},
    {"field": "priority", "ops": "Is", "value": "Urgent"},
    {"field": "statusCategory", "ops": "Is", "value": "Done"},
    {"field": "assignedTo", "ops": "HasValue", "value": None},
    {"field": "dueDate", "ops": "LessThan", "value": "2026-01-01"},
]


def title() -> str:
    return (
        f"Create with {RULES} enabled rules in the channel that do not match, against create "
        f"in a channel with none (same app, worker running, {CONNECTIONS} connections)"
    )


def measure(kind: str) -> dict[str, Series]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        demo = json.loads(run_cli(env, "admin", "demo"))
        run_cli(
            env,
            *("admin", "channel", "add", "--team-id", demo["teamId"]),
            *("--channel-id", RULED_CHANNEL, "--name", "Rules"),
        )
        cookie = {"Cookie": f"graphNodeCookie={demo['cookie']}"}
        plain = {**cookie, "x-svc-teamid": demo["teamId"], "x-svc-channelId": demo["channelId"]}
        ruled = {**plain, "x-svc-channelId": RULED_CHANNEL}
        port = free_port()
        post_bug = Path(__file__).with_name("post_bug.lua")
        with server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port) as app:
            for at, condition in enumerate(CONDITIONS):
                _add_rule(app.base, ruled, at, condition)

            def create(headers: dict[str, str]):  # noqa: ANN202 - a wrk run
                posting = {**headers, "Content-Type": "application/json"}
                return lambda: wrk(
                    app.base + "/odata/bugs",
                    headers=posting,
                    connections=CONNECTIONS,
                    script=post_bug,
                )

            results = in_rounds({"none": create(plain), "rules": create(ruled)})
            _check_nothing_delivered(app.base, ruled)
            return results


def _add_rule(base: str, headers: dict[str, str], at: int, condition: dict) -> None:
    body = {
        "eventName": f"Bench rule {at}",
        "entityType": "bug",
        "triggerType": "ITEM_CREATED",
        "conditions": [{"ops": "and", "conditions": [condition]}],
        "actionType": "HTTP",
        "action": {"url": HOOK, "method": "POST", "headers": [], "body": ""},
    }
    _post(base, "/odata/eventDefinitions", headers, body)


def _check_nothing_delivered(base: str, headers: dict[str, str]) -> None:
    """The rules were matched, not fired: no rule has a delivery."""
    request = urllib.request.Request(base + "/api/events", headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        rules = json.loads(response.read())["value"]
    assert len(rules) == RULES and all(rule["enable"] for rule in rules), rules


def _post(base: str, path: str, headers: dict[str, str], body: object) -> None:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={**headers, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        response.read()


def report(kind: str, results: dict[str, Series]) -> str:
    none, rules = results["none"], results["rules"]
    return (
        f"{kind:10} with rules {rules.requests_per_second:6.0f} creates/s"
        f" (p99 {rules.p99_ms:6.1f} ms)  without {none.requests_per_second:6.0f} creates/s"
        f" (p99 {none.p99_ms:6.1f} ms)  with/without {ratio(rules, none)}"
    )

"""Many channels and callers (issue 14, section 2): the items benchmark's list asked always in one
channel and rotating over 1,000, and the personal view asked by one user and rotating over 1,000
users; one database and one app process, side by side in rounds, beside the bare ceiling."""

import json
import sys
import tempfile
import urllib.request
from contextlib import ExitStack
from functools import partial
from pathlib import Path

from bench import channels_data
from bench.harness import (
    Series,
    dataset_database,
    environment,
    free_port,
    in_rounds,
    ratio,
    run_module,
    server,
    wrk,
)
from bench.items import LIST_PATH
from bot import demo

CONNECTIONS = 8
ME_PATH = "/api/me/bugs?$top=50&$count=true"
ROTATE = Path(__file__).with_name("rotate.lua")
LISTED = 50  # the list's page and count in every channel (a quarter of its bugs In Progress)
MINE = channels_data.ASSIGNED_PER_CHANNEL * channels_data.CHANNELS_PER_TEAM
CASES = ("list", "me")


def measure(kind: str) -> dict[str, Series]:
    data = channels_data.dataset()
    with (
        tempfile.TemporaryDirectory() as folder,
        dataset_database(kind, Path(folder), data) as url,
        ExitStack() as servers,
    ):
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        mine, *theirs = json.loads(
            run_module(env, "bench.channels_data", "tokens", url, demo.USERS[0][1])
        )
        # Each line: one request's headers (`rotate.lua`); the demo user lists the channels.
        places = [
            f"Authorization: Bearer {mine}\tx-svc-teamid: {team}\tx-svc-channelId: {channel}"
            for team, channel in channels_data.places()
        ]
        callers = [
            f"Authorization: Bearer {token}\tx-svc-entityId: {demo.ENTITY_ID}" for token in theirs
        ]
        port = free_port()
        app = servers.enter_context(
            server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
        )
        runs = {}
        for case, path, lines, expected in (
            ("list", LIST_PATH, places, LISTED),
            ("me", ME_PATH, callers, MINE),
        ):
            body = _each_its_own(app.base + path, lines, expected)
            one = _lines(Path(folder) / f"{case}_one.txt", lines[:1])
            many = _lines(Path(folder) / f"{case}_many.txt", lines)
            body_file = Path(folder) / f"{case}.json"
            body_file.write_bytes(body)
            port = free_port()
            command = [sys.executable, "-m", "bench.bare_server", str(port), str(body_file)]
            bare = servers.enter_context(server(command, env, port))
            for name, base, file in (
                ("one", app.base, one),
                ("many", app.base, many),
                ("bare", bare.base, one),
            ):
                runs[f"{case}_{name}"] = partial(
                    wrk,
                    base + path,
                    headers={},
                    connections=CONNECTIONS,
                    script=ROTATE,
                    script_args=(str(file),),
                )
        return in_rounds(runs)


def _lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def _each_its_own(url: str, lines: list[str], expected: int) -> bytes:
    """Stop unless the first and last place each answer a full page of their own rows, counted:
    a rotation answered from one place's rows would measure nothing. The first one's body."""
    bodies = []
    for line in (lines[0], lines[-1]):
        headers = dict(pair.split(": ", 1) for pair in line.split("\t"))
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            body = response.read()
        page = json.loads(body)
        if page["@odata.count"] != expected or len(page["value"]) != expected:
            raise RuntimeError(f"{url}: {page['@odata.count']} rows, not {expected}")
        bodies.append(body)
    first, last = ({row["_id"] for row in json.loads(body)["value"]} for body in bodies)
    if first & last:
        raise RuntimeError(f"{url}: two places answered the same rows")
    return bodies[0]


def report(kind: str, results: dict[str, Series]) -> list[str]:
    lines = []
    for case in CASES:
        one, many, bare = (results[f"{case}_{name}"] for name in ("one", "many", "bare"))
        lines.append(
            f"{case:5} {kind:10} one {one.requests_per_second:6.0f} req/s"
            f" (p50 {one.p50_ms:5.1f}, p99 {one.p99_ms:5.1f} ms)"
            f"  1,000 {many.requests_per_second:6.0f} req/s"
            f" (p50 {many.p50_ms:5.1f}, p99 {many.p99_ms:5.1f} ms)"
            f"  1,000/one {ratio(many, one)}"
            f"  bare {bare.requests_per_second:6.0f}  one/bare {ratio(one, bare, '.1%')}"
        )
    return lines


def title() -> str:
    return (
        f"Many channels: {LIST_PATH} in one channel and rotating over 1,000 (200 bugs each, "
        f"{LISTED} listed); {ME_PATH} for one user and rotating over 1,000 ({MINE} bugs each); "
        f"{CONNECTIONS} connections"
    )

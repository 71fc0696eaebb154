"""What each index the tabs added (migration 0027) costs the bulk edit, on PostgreSQL (issue 31's
15 % rule): the bulk edit of 1,000 bugs' statuses and of their priorities, through the app, over
the list-shapes dataset (100k bugs in one channel), with both indexes, without each, and without
either, in the same run. The variants take turns round after round (each index dropped, or made
again from its own definition, between them), so the machine's load falls on all of them alike.

Each figure: the median wall time of a round's edits, and the CPU they took in the app and its
PostgreSQL backends (`list_shapes.CpuTime`), which others' load disturbs least. Beside them, the
ceiling of the same run: the same edit's UPDATE of 1,000 rows (status and updated_at) sent by
psql alone, with both indexes.
"""

import json
import statistics
import subprocess
import time

from bench import items_data
from bench.harness import ROUNDS
from bench.items import BUGS, app_on
from bench.list_shapes import BULK_IDS, PRIORITIES, STATUSES, Client, CpuTime, connect, list_path

INDEXES = ("ix_items_channel_id_kind_id", "ix_items_channel_id_kind_name_key_id")
VARIANTS = {
    "both indexes": INDEXES,
    "without (channel_id, kind, id)": INDEXES[1:],
    "without (channel_id, kind, name_key, id)": INDEXES[:1],
    "without either": (),
}
EDITS_PER_FIELD = 4  # each round, per variant: statuses then priorities, each value in turn


def measure(kind: str = "postgresql") -> dict[str, dict[str, list[float]]]:
    assert kind == "postgresql", "SQLite leaves both indexes alone on a bulk edit"
    with app_on(kind, items_data.dataset(BUGS, 0, name="shapes")) as served:
        database = served.url.rsplit("/", 1)[1]
        made = _definitions(database)
        client = connect(served.app.base, served.headers)
        everything = client.ask("GET", list_path({"$top": str(BULK_IDS), "$select": "_id"}))
        ids = [row["_id"] for row in json.loads(everything)["value"]]
        cpu = CpuTime(served.app.pid, served.url)
        results: dict[str, dict[str, list[float]]] = {
            name: {key: [] for key in ("status", "status_cpu", "priority", "priority_cpu")}
            for name in VARIANTS
        }
        results["ceiling"] = {"status": []}
        for _ in range(ROUNDS):
            for name, kept in VARIANTS.items():
                _keep(database, made, kept)
                _edits(client, cpu, ids, results[name])
            _keep(database, made, INDEXES)
            results["ceiling"]["status"].extend(_bare_updates(database, ids))
        return results


def _edits(client: Client, cpu: CpuTime, ids: list[str], into: dict[str, list[float]]) -> None:
    for field, values in (("status", STATUSES), ("priority", PRIORITIES)):
        cpu.lap()
        walls = []
        for edit in range(EDITS_PER_FIELD):
            started = time.perf_counter()
            client.ask("POST", "/api/bulk/bug", {"ids": ids, field: values[edit % 2]})
            walls.append((time.perf_counter() - started) * 1000)
        into[field].append(statistics.median(walls))
        into[f"{field}_cpu"].append(cpu.lap() / EDITS_PER_FIELD)


def _bare_updates(database: str, ids: list[str]) -> list[float]:
    """The edit's UPDATE alone, as psql's own timing reports it."""
    listed = ", ".join(f"'{item_id}'" for item_id in ids)
    times = []
    for edit in range(EDITS_PER_FIELD):
        status = STATUSES[edit % 2]
        statement = (
            f"UPDATE items SET status = '{status}', updated_at = now() WHERE id IN ({listed})"
        )
        output = _sql(database, "\\timing on\n" + statement)
        times.append(float(output.rsplit("Time: ", 1)[1].split(" ms")[0]))
    return times


def _definitions(database: str) -> dict[str, str]:
    rows = _sql(
        database,
        "SELECT indexname || '|' || indexdef FROM pg_indexes WHERE indexname IN "
        f"({', '.join(repr(name) for name in INDEXES)})",
    )
    made = dict(line.split("|", 1) for line in rows.splitlines() if line)
    assert set(made) == set(INDEXES), f"migration 0027's indexes not found: {made}"
    return made


def _keep(database: str, made: dict[str, str], kept: tuple[str, ...]) -> None:
    """Exactly `kept` of the two indexes present, the others dropped; the table analysed."""
    present = set(_sql(database, "SELECT indexname FROM pg_indexes").split())
    for name, definition in made.items():
        if name in kept and name not in present:
            _sql(database, definition)
        elif name not in kept and name in present:
            _sql(database, f"DROP INDEX {name}")
    _sql(database, "VACUUM ANALYZE items")


def _sql(database: str, statements: str) -> str:
    command = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-d", database, "-tAq"]
    done = subprocess.run(command, input=statements, check=True, capture_output=True, text=True)
    return done.stdout


def report(kind: str, results: dict[str, dict[str, list[float]]]) -> list[str]:
    lines = [
        f"{kind}: bulk edit of {BULK_IDS} bugs in the app, median of {ROUNDS} rounds' medians "
        f"({EDITS_PER_FIELD} edits each): wall ms, CPU ms (app and database), vs both indexes"
    ]
    base = {key: statistics.median(values) for key, values in results["both indexes"].items()}
    for name in VARIANTS:
        cells = []
        for field in ("status", "priority"):
            wall = statistics.median(results[name][field])
            used = statistics.median(results[name][f"{field}_cpu"])
            share = used / base[f"{field}_cpu"] - 1
            cells.append(f"{field} {wall:6.0f} ms, CPU {used:5.0f} ms ({share:+.0%})")
        lines.append(f"  {name:42} " + "; ".join(cells))
    ceiling = results["ceiling"]["status"]
    lines.append(
        f"  {'ceiling: the UPDATE alone (psql), both':42} status {statistics.median(ceiling):6.0f} "
        f"ms (range {min(ceiling):.0f}-{max(ceiling):.0f})"
    )
    return lines


if __name__ == "__main__":
    for line in report("postgresql", measure()):
        print(line, flush=True)

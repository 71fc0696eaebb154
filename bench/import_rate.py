"""`admin import` of a 10k-row CSV beside inserting the same rows with the raw driver (sqlite3's
or asyncpg's executemany), in the same run (`python -m bench import`).

Both start from the same file and end with the same rows: the CSV read with the csv module, each
item numbered, its status, priority and severity named by the demo channel's values, half of them
assigned to Ada, written in one transaction (items, assignees, the channel's counter). The raw
side checks nothing; the import checks every row by the item rules and streams the file. The
imported rows are removed after each run, so every round writes into the same channel.
"""

import argparse
import asyncio
import csv
import sqlite3
import statistics
import tempfile
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from bench.harness import ROUNDS, SECRET, environment, run_cli, scratch_database
from bot.cli.imports import import_items
from bot.ids import new_ids
from bot.schemas import ItemKind
from bot.settings import Settings

ROWS = 10_000
TEAM, CHANNEL = "19:demo-team@thread.tacv2", "19:demo-bugs@thread.tacv2"
ADA = "ada@demo.example"
STATUSES, PRIORITIES = ("Not Started", "In Progress"), ("Urgent", "High", "Normal", "Low")
SEVERITIES = ("Critical", "High", "Medium", "Low")
NAME_PREFIX = "Imported row"


def title() -> str:
    return (
        f"Import of a {ROWS:,}-row CSV into one channel (all or nothing, no events) beside the "
        f"raw driver's executemany of the same rows, {ROUNDS} rounds"
    )


def _write_csv(path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(
            ["name", "body", "status", "priority", "severity", "assignee", "start date", "due date"]
        )
        for number in range(ROWS):
            writer.writerow(
                [
                    f"{NAME_PREFIX} {number}",
                    f"Steps to reproduce number {number}: open, click, see it fail.",
                    STATUSES[number % 2],
                    PRIORITIES[number % 4],
                    SEVERITIES[number % 4],
                    ADA if number % 2 else "",
                    f"2026-12-{1 + number % 28:02d}",
                    f"2027-01-{1 + number % 28:02d}T17:00:00Z",
                ]
            )


def measure(kind: str) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false")
        run_cli(env, "admin", "demo")
        csv_path = Path(folder) / "items.csv"
        _write_csv(csv_path)
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, DATABASE_URL=url, DATA_DIR=folder, SECRET_KEY=SECRET
        )
        args = argparse.Namespace(
            team_id=TEAM,
            channel_id=CHANNEL,
            file=csv_path,
            dry_run=False,
            events=False,
            kind=ItemKind.BUG,
        )
        raw = _RawSqlite(url) if kind == "sqlite" else _RawPostgres(url)
        figures: dict[str, list[float]] = {"import": [], "raw": []}
        for _ in range(ROUNDS):
            started = time.perf_counter()
            answer = asyncio.run(import_items(settings, args))
            figures["import"].append(ROWS / (time.perf_counter() - started))
            assert answer["items"]["bugs"] == ROWS, answer
            raw.clear()
            started = time.perf_counter()
            raw.insert(csv_path)
            figures["raw"].append(ROWS / (time.perf_counter() - started))
            raw.clear()
            if isinstance(raw, _RawPostgres):
                started = time.perf_counter()
                raw.copy(csv_path)
                figures.setdefault("copy", []).append(ROWS / (time.perf_counter() - started))
                raw.clear()
        return figures


def report(kind: str, figures: dict[str, list[float]]) -> str:
    imported, raw = figures["import"], figures["raw"]
    ratios = sorted(a / b for a, b in zip(imported, raw, strict=True))
    line = (
        f"import   {kind:10} {statistics.median(imported):7,.0f} rows/s, raw executemany "
        f"{statistics.median(raw):7,.0f} rows/s: {statistics.median(ratios):.0%} "
        f"({ratios[0]:.0%}-{ratios[-1]:.0%})"
    )
    if "copy" in figures:  # PostgreSQL's fastest way in, for scale: one COPY
        copied = sorted(a / b for a, b in zip(imported, figures["copy"], strict=True))
        line += (
            f"; COPY {statistics.median(figures['copy']):7,.0f} rows/s: "
            f"{statistics.median(copied):.0%} ({copied[0]:.0%}-{copied[-1]:.0%})"
        )
    return line


def _rows(csv_path: Path, channel: dict[str, Any]) -> tuple[list[tuple[Any, ...]], list[str]]:
    """The items' column values in `_COLUMNS` order, and the ids of those assigned to Ada."""
    now = datetime.now(UTC)
    rows, assigned = [], []
    with csv_path.open(newline="", encoding="utf-8") as source:
        reader = csv.reader(source)
        next(reader)
        records = list(reader)
    ids = new_ids(len(records))
    for number, (item_id, record) in enumerate(
        zip(ids, records, strict=True), start=channel["next"]
    ):
        name, body, status, priority, severity, assignee, start, due = record
        rows.append(
            (
                item_id,
                channel["id"],
                "bug",
                number,
                name,
                body,
                status,
                channel["statuses"][status],
                priority,
                severity,
                channel["project"],
                "Svc.Native",
                item_id,
                datetime.fromisoformat(start).replace(tzinfo=UTC),
                datetime.fromisoformat(due),
                "[]",
                now,
                now,
                now,
            )
        )
        if assignee:
            assigned.append(item_id)
    return rows, assigned


_COLUMNS = (
    "id, channel_id, kind, internal_id, name, body, status, status_id, priority, severity, "
    "project_id, source, source_id, start_date, due_date, bucket, sync_at, created_at, updated_at"
)


class _RawSqlite:
    """sqlite3 itself, tuned as the app's connections are (WAL, synchronous NORMAL)."""

    def __init__(self, url: str) -> None:
        self.path = url.removeprefix("sqlite+aiosqlite:///")

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None)
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("PRAGMA temp_store=MEMORY")
        return connection

    def insert(self, csv_path: Path) -> None:
        with closing(self._connect()) as connection:
            connection.execute("BEGIN IMMEDIATE")
            channel = _sqlite_channel(connection)
            rows, assigned = _rows(csv_path, channel)
            stored = [
                (
                    *row[:13],
                    *(_sqlite_time(value) for value in row[13:15]),
                    row[15],
                    *(_sqlite_time(value) for value in row[16:]),
                )
                for row in rows
            ]
            connection.executemany(
                f"INSERT INTO items ({_COLUMNS}) VALUES ({', '.join('?' * 19)})", stored
            )
            created = _sqlite_time(rows[0][-1])
            connection.executemany(
                "INSERT INTO item_assignees (item_id, user_id, position, kind, channel_id, "
                "created_at) VALUES (?, ?, 0, 'bug', ?, ?)",
                [(item_id, channel["ada"], channel["id"], created) for item_id in assigned],
            )
            connection.execute(
                "UPDATE item_counters SET last_internal_id = last_internal_id + ? "
                "WHERE channel_id = ? AND kind = 'bug'",
                (len(rows), channel["id"]),
            )
            connection.execute("COMMIT")

    def clear(self) -> None:
        with closing(self._connect()) as connection:
            connection.execute("DELETE FROM items WHERE name LIKE ?", (f"{NAME_PREFIX}%",))


def _sqlite_time(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _sqlite_channel(connection: sqlite3.Connection) -> dict[str, Any]:
    (channel_id,) = connection.execute("SELECT id FROM channels WHERE teams_id = ?", (CHANNEL,))
    channel = channel_id[0]
    return {
        "id": channel,
        "next": _one(
            connection,
            "SELECT last_internal_id + 1 FROM item_counters WHERE channel_id = ? AND kind = 'bug'",
            channel,
        ),
        "project": _one(connection, "SELECT id FROM projects WHERE channel_id = ?", channel),
        "ada": _one(connection, "SELECT id FROM users WHERE username = ?", ADA),
        "statuses": dict(
            connection.execute(
                "SELECT name, id FROM field_values WHERE channel_id = ? AND field = 'status' "
                "AND type = 'Bug'",
                (channel,),
            ).fetchall()
        ),
    }


def _one(connection: sqlite3.Connection, sql: str, value: str) -> Any:
    return connection.execute(sql, (value,)).fetchone()[0]


class _RawPostgres:
    """asyncpg itself: executemany of the same rows (and, for scale, one COPY of them)."""

    def __init__(self, url: str) -> None:
        self.dsn = url.replace("postgresql+asyncpg://", "postgresql://")

    def insert(self, csv_path: Path) -> None:
        asyncio.run(self._insert(csv_path))

    def clear(self) -> None:
        asyncio.run(self._execute("DELETE FROM items WHERE name LIKE $1", f"{NAME_PREFIX}%"))

    async def _execute(self, sql: str, *values: Any) -> None:
        connection = await asyncpg.connect(self.dsn)
        try:
            await connection.execute(sql, *values)
        finally:
            await connection.close()

    def copy(self, csv_path: Path) -> None:
        asyncio.run(self._insert(csv_path, copy=True))

    async def _insert(self, csv_path: Path, *, copy: bool = False) -> None:
        connection = await asyncpg.connect(self.dsn)
        try:
            async with connection.transaction():
                channel = await _postgres_channel(connection)
                rows, assigned = _rows(csv_path, channel)
                if copy:
                    columns = [name.strip() for name in _COLUMNS.split(",")]
                    await connection.copy_records_to_table("items", records=rows, columns=columns)
                else:
                    placeholders = ", ".join(f"${n}" for n in range(1, 20))
                    await connection.executemany(
                        f"INSERT INTO items ({_COLUMNS}) VALUES ({placeholders})", rows
                    )
                await connection.executemany(
                    "INSERT INTO item_assignees (item_id, user_id, position, kind, channel_id, "
                    "created_at) VALUES ($1, $2, 0, 'bug', $3, $4)",
                    [(item_id, channel["ada"], channel["id"], rows[0][-1]) for item_id in assigned],
                )
                await connection.execute(
                    "UPDATE item_counters SET last_internal_id = last_internal_id + $1 "
                    "WHERE channel_id = $2 AND kind = 'bug'",
                    len(rows),
                    channel["id"],
                )
        finally:
            await connection.close()


async def _postgres_channel(connection: asyncpg.Connection) -> dict[str, Any]:
    channel = await connection.fetchval("SELECT id FROM channels WHERE teams_id = $1", CHANNEL)
    statuses = await connection.fetch(
        "SELECT name, id FROM field_values WHERE channel_id = $1 AND field = 'status' "
        "AND type = 'Bug'",
        channel,
    )
    return {
        "id": channel,
        "next": await connection.fetchval(
            "SELECT last_internal_id + 1 FROM item_counters WHERE channel_id = $1 AND kind = 'bug'",
            channel,
        ),
        "project": await connection.fetchval(
            "SELECT id FROM projects WHERE channel_id = $1", channel
        ),
        "ada": await connection.fetchval("SELECT id FROM users WHERE username = $1", ADA),
        "statuses": {row["name"]: row["id"] for row in statuses},
    }

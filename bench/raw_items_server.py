"""Raw-driver ceiling of the items benchmarks: the app's statements with sqlite3 or asyncpg.

GET /odata/bugs runs what the app runs for the benchmark's list (caller and channel; the page
with its version and assignees, compiled from the app's own query code; the people it names; the
count, statuses and projects only when the version moved) and encodes the same JSON; POST
/odata/bugs runs the create transaction (caller and channel, field values, native project,
counter, item, event); POST /api/bulk/bug runs the bulk edit's transaction for a new status
(caller and channel, field values, external projects, the rows locked in id order, one UPDATE
per completed date, the version, one event per changed item in one executemany) and answers the
same list. sqlite3 is called directly, on the event loop: no thread hop.
"""

import hashlib
import json
import re
import secrets
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import asyncpg
import orjson
from aiohttp import web
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as SQLiteDialect

from bench import raw_common
from bench.items import LIST_QUERY
from bench.raw_common import (
    Compiled,
    details,
    people,
    project_refs,
    users_statement,
)
from bot.items.queries import entity_set
from bot.items.read import items_statement
from bot.items.versions import VERSION, version_column
from bot.odata.query import apply, count_statement, parse_query
from bot.schemas import ItemKind
from bot.uow import ChannelScope

CALLER = """
SELECT t.expires_at, u.id, tm.user_id, ch.id, ch.teams_id, tt.teams_id, tt.group_id
FROM auth_tokens t JOIN users u ON u.id = t.user_id
LEFT JOIN teams tt ON tt.teams_id = :team
LEFT JOIN team_members tm ON tm.team_id = tt.id AND tm.user_id = u.id
LEFT JOIN channels ch ON ch.teams_id = :channel
WHERE t.token_hash = :hash"""
ITEM_COLUMNS = (
    "id, internal_id, name, body, owner, status, status_id, priority, severity, project_id, "
    "source, source_id, start_date, due_date, completed_date, effort, phase, phase_name, bucket, "
    "bucket_name, entity_id, sync_status, sync_at, created_by, updated_by, created_at, updated_at"
)
STATUSES = (
    "SELECT id, category, value FROM field_values "
    "WHERE channel_id = :c AND field = 'status' AND type = 'Bug'"
)
PROJECTS = (
    "SELECT id, enable_bug, display_name, hostname, project_name, source_id, source "
    "FROM projects WHERE channel_id = :c"
)
FIELD_VALUES = (
    'SELECT id, field, name, category, "primary" FROM field_values '
    "WHERE channel_id = :c AND type = 'Bug'"
)
NEXT_NUMBER = (
    "UPDATE item_counters SET last_internal_id = last_internal_id + 1, version = version + 1 "
    "WHERE channel_id = :c AND kind = 'bug' RETURNING last_internal_id"
)
INSERT_ITEM = f"""
INSERT INTO items (channel_id, kind, {ITEM_COLUMNS}) VALUES (:c, 'bug', :id, :internal_id,
:name, NULL, NULL, :status, :status_id, :priority, :severity, :project_id, :source, :id, NULL,
:due, NULL, NULL, NULL, NULL, :bucket, NULL, NULL, NULL, :now, :user, :user, :now, :now)"""
INSERT_EVENT = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
VALUES (:event, :c, 'bug', :id, 'ITEM_CREATED', :user, :now, :payload, NULL)"""
# The bulk edit's: its rows locked in id order (the ids one parameter: {ids}), its UPDATE.
BULK_ROWS = """
SELECT id, name, project_id, status_id, status, start_date, due_date, completed_date
FROM items WHERE id {ids} AND channel_id = :c AND kind = 'bug' ORDER BY id{lock}"""
BULK_UPDATE = """
UPDATE items SET status = :status, status_id = :status_id, completed_date = :completed,
sync_status = NULL, sync_at = :now, updated_at = :now, updated_by = :user WHERE id {ids}"""
BUMP = "UPDATE item_counters SET version = version + 1 WHERE channel_id = :c AND kind = 'bug'"
UPDATED_EVENT = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
VALUES (:event, :c, 'bug', :id, 'ITEM_UPDATED', :user, :now, :payload, NULL)"""
# PostgreSQL's, as the app writes them there: every row in one statement, from three arrays.
UPDATED_EVENTS = """
INSERT INTO pending_events (id, channel_id, kind, item_id, "trigger", actor_id, occurred_at,
payload, processed_at)
SELECT e.id, :c, 'bug', e.item_id, 'ITEM_UPDATED', :user, :now, e.payload::json, NULL
FROM unnest(:events::varchar[], :items::varchar[], :payloads::text[]) AS e(id, item_id, payload)"""


# Named values for the hand-written statements, positional ones for the compiled.
Params = dict[str, Any] | list[Any]
Run = Callable[[str, dict[str, Any]], Awaitable[list[Sequence[Any]]]]
Many = Callable[[str, list[dict[str, Any]]], Awaitable[None]]
STAND_IN = "c" * 24  # the channel id compiled into the list's statements, replaced per request
# Where the hand-written PROJECTS puts each column.
PROJECT_AT = {
    name: index
    for index, name in enumerate(
        ("id", "enable_bug", "display_name", "hostname", "project_name", "source_id", "source")
    )
}


class Transaction:
    """The statements of one transaction: `run` for rows, `many` for one statement per row."""

    def __init__(self, run: Run, many: Many) -> None:
        self.run, self.many = run, many


class Sqlite:
    def __init__(self, path: str) -> None:
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.connection.execute("PRAGMA busy_timeout=5000")
        # As the app's connections (`bot.db.engine`): the same durability, the same checks.
        self.connection.execute("PRAGMA synchronous=NORMAL")
        self.connection.execute("PRAGMA foreign_keys=ON")

    dialect = SQLiteDialect()
    one_of = "IN (SELECT value FROM json_each(:ids))"
    lock = ""  # the transaction holds the write lock from its BEGIN IMMEDIATE
    events_at_once = False  # one statement per event (executemany)

    async def rows(self, sql: str, params: Params) -> list[Sequence[Any]]:
        return self.connection.execute(sql, params).fetchall()

    async def many(self, sql: str, rows: list[dict[str, Any]]) -> None:
        self.connection.executemany(sql, rows)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield Transaction(self.rows, self.many)
            self.connection.execute("COMMIT")
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise

    def instant(self, value: datetime) -> Any:
        # As SQLAlchemy stores it: microseconds always written, so stored texts compare in order.
        return value.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")

    def ids(self, ids: list[str]) -> Any:
        return json.dumps(ids)


class Postgres:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    dialect = PGDialect_asyncpg()
    one_of = "= ANY(:ids)"
    lock = " FOR UPDATE"
    events_at_once = True  # one statement for every event (unnest)

    async def rows(self, sql: str, params: Params) -> list[Sequence[Any]]:
        text, args = _numbered(sql, params) if isinstance(params, dict) else (sql, params)
        return await self.pool.fetch(text, *args)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self.pool.acquire() as connection, connection.transaction():

            async def run(sql: str, params: dict[str, Any]) -> list[Sequence[Any]]:
                text, args = _numbered(sql, params)
                return await connection.fetch(text, *args)

            async def many(sql: str, rows: list[dict[str, Any]]) -> None:
                text, names = _numbered_names(sql)
                await connection.executemany(text, [[row[n] for n in names] for row in rows])

            yield Transaction(run, many)

    def instant(self, value: datetime) -> Any:
        return value

    def ids(self, ids: list[str]) -> Any:
        return ids


def _numbered(sql: str, params: dict[str, Any]) -> tuple[str, list[Any]]:
    text, names = _numbered_names(sql)
    return text, [params[name] for name in names]


def _numbered_names(sql: str) -> tuple[str, list[str]]:
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return re.sub(r"(?<!:):(\w+)", number, sql), names


NATIVE = "Svc.Native"
ID = re.compile(r"^[0-9a-f]{24}$")
NOT_FOUND, INVALID_DATES = "Svc_NOTFOUND", "Svc_INVALID_DATES"


def _bulk_result(item_id: str, name: str | None, error: str | None) -> dict[str, Any]:
    """One id's answer, as the app's BulkResult writes it."""
    if error is None:
        return {"_id": item_id, "name": name, "status": "success"}
    return {"_id": item_id, "name": name, "status": "error", "error": error}


def _instant(value: Any) -> datetime | None:
    """A stored timestamp as an aware datetime (SQLite's text, PostgreSQL's datetime)."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(value).replace(tzinfo=UTC)


def _ts(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def _list_statements(dialect: Any) -> tuple[Compiled, Compiled, Compiled]:
    """The page (with its version) and the count of the benchmark's list, and the people look-up,
    as the app builds them."""
    scope = ChannelScope(STAND_IN, "team", STAND_IN, "channel", None, None)
    query = parse_query(LIST_QUERY, entity_set(ItemKind.BUG, scope))
    items = items_statement(STAND_IN, ItemKind.BUG)
    version = version_column(channel_id=STAND_IN, kind=ItemKind.BUG)
    page = Compiled(apply(items, query, keyed=True).add_columns(version), dialect)
    return page, Compiled(count_statement(items, query), dialect), users_statement(dialect)


def build(db: Any, base: str) -> web.Application:
    """The ceiling's routes; `base` starts its @odata links, as PUBLIC_URL does the app's."""
    counts: dict[str, tuple[int, int]] = {}
    references: dict[str, tuple[int, dict[str, Any], dict[str, Any]]] = {}
    list_page, list_count, list_users = _list_statements(db.dialect)

    async def caller(request: web.Request) -> tuple[str, str, tuple[str, str, str | None]]:
        secret = request.cookies["graphNodeCookie"]
        found = await db.rows(
            CALLER,
            {
                "hash": hashlib.sha256(secret.encode()).hexdigest(),
                "team": request.headers["x-svc-teamid"],
                "channel": request.headers["x-svc-channelId"],
            },
        )
        if not found or found[0][2] is None:
            raise web.HTTPForbidden
        row = found[0]
        return row[1], row[3], (row[4], row[5], row[6])

    async def list_bugs(request: web.Request) -> web.Response:
        _user_id, channel, place = await caller(request)
        replace = {STAND_IN: channel}
        fetched = await db.rows(list_page.sql, list_page.args(replace))
        rows, at = fetched[:50], list_page.columns
        version = fetched[0][at[VERSION]]
        cached = counts.get(channel)
        if cached is None or cached[0] != version:
            counts[channel] = (
                version,
                (await db.rows(list_count.sql, list_count.args(replace)))[0][0],
            )
        count = counts[channel][1]
        # Statuses and projects are cached under the version too, as the app caches them.
        if references.get(channel, (None,))[0] != version:
            statuses = {row[0]: row for row in await db.rows(STATUSES, {"c": channel})}
            projects = project_refs(await db.rows(PROJECTS, {"c": channel}), PROJECT_AT)
            references[channel] = (version, statuses, projects)
        _version, statuses, projects = references[channel]
        assigned, users = await people(db.rows, list_users, rows, at)
        value = [
            details(row, at, ids, statuses, projects, users, place)
            for row, ids in zip(rows, assigned, strict=True)
        ]
        body = {"@odata.context": "x", "@odata.count": count, "value": value}
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    async def create_bug(request: web.Request) -> web.Response:
        body = await request.json()
        user_id, channel, _place = await caller(request)
        values = await db.rows(FIELD_VALUES, {"c": channel})
        primary = {row[1]: row for row in values if row[4]}
        named = {(row[1], row[2].lower()): row for row in values}
        status = primary["status"]
        priority = named[("priority", body["priority"].lower())]
        project = next(
            row for row in await db.rows(PROJECTS, {"c": channel}) if row[6] == "Svc.Native"
        )
        now = datetime.now(UTC)
        item_id = f"{int(time.time()):08x}{secrets.token_hex(8)}"
        due = datetime.fromisoformat(body["dueDate"]).replace(tzinfo=UTC)
        severity = primary["severity"][2]
        params = {
            "c": channel,
            "id": item_id,
            "name": body["name"],
            "status": status[2],
            "status_id": status[0],
            "priority": priority[2],
            "severity": severity,
            "project_id": project[0],
            "source": project[6],
            "due": db.instant(due),
            "bucket": "[]",
            "now": db.instant(now),
            "user": user_id,
            "event": f"{int(time.time()):08x}{secrets.token_hex(8)}",
        }
        async with db.transaction() as transaction:
            run = transaction.run
            internal_id = (await run(NEXT_NUMBER, {"c": channel}))[0][0]
            params["internal_id"] = internal_id
            await run(INSERT_ITEM, params)
            # The created shape, as the app answers it and its ITEM_CREATED event carries it.
            created = {
                "_id": item_id,
                "internalId": internal_id,
                "name": body["name"],
                "body": None,
                "owner": None,
                "status": status[2],
                "priority": priority[2],
                "source": project[6],
                "sourceId": item_id,
                "startDate": None,
                "dueDate": _ts(due),
                "completedDate": None,
                "effort": None,
                "phase": None,
                "phaseName": None,
                "bucket": [],
                "bucketName": None,
                "attachments": [],
                "createdAt": _ts(now),
                "updatedAt": _ts(now),
                "projectId": project[0],
                "assignedTo": [],
                "severity": severity,
            }
            params["payload"] = orjson.dumps({"item": created}).decode()
            await run(INSERT_EVENT, params)
        link = f"{base}/odata/bugs('{item_id}')"
        answer = {
            "@odata.context": f"{base}/odata/$metadata#bugs/$entity",
            "@odata.editLink": link,
            "@odata.id": link,
            **created,
        }
        return web.Response(body=orjson.dumps(answer), status=201, content_type="application/json")

    bulk_rows = BULK_ROWS.format(ids=db.one_of, lock=db.lock)
    bulk_update = BULK_UPDATE.format(ids=db.one_of)

    async def bulk_edit_bugs(request: web.Request) -> web.Response:
        body = orjson.loads(await request.read())
        ids, wanted = body["ids"], body["status"].strip().casefold()
        user_id, channel, _place = await caller(request)
        values = await db.rows(FIELD_VALUES, {"c": channel})
        statuses = {row[0]: row for row in values if row[1] == "status"}
        status = next(row for row in statuses.values() if row[2].strip().casefold() == wanted)
        external = [row for row in await db.rows(PROJECTS, {"c": channel}) if row[6] != NATIVE]
        assert not external, "the ceiling edits a channel without external projects"
        done = {row[0] for row in statuses.values() if row[3] == "Done"}
        now = datetime.now(UTC)
        results: dict[str, dict[str, Any]] = {}
        groups: dict[Any, list[str]] = {}
        events = []
        async with db.transaction() as transaction:
            wanted_ids = [i for i in dict.fromkeys(ids) if ID.match(i)]
            rows = await transaction.run(bulk_rows, {"ids": db.ids(wanted_ids), "c": channel})
            found = {row[0]: row for row in rows}
            for item_id in dict.fromkeys(ids):
                row = found.get(item_id)
                if row is None:
                    results[item_id] = _bulk_result(item_id, None, NOT_FOUND)
                    continue
                name, status_id, current, completed = row[1], row[3], row[4], row[7]
                start, due = _instant(row[5]), _instant(row[6])
                if start is not None and due is not None and due < start:
                    results[item_id] = _bulk_result(item_id, name, INVALID_DATES)
                    continue
                results[item_id] = _bulk_result(item_id, name, None)
                # The Done rule: filled on moving into Done, cleared on moving out.
                was_done, is_done = status_id in done, status[0] in done
                old_completed = _instant(completed)
                new_completed = old_completed
                if is_done != was_done:
                    new_completed = now if is_done else None
                changes = []
                if current != status[2]:
                    changes.append({"field": "status", "old": current, "new": status[2]})
                if new_completed != old_completed:
                    changes.append(
                        {
                            "field": "completedDate",
                            "old": _ts(old_completed),
                            "new": _ts(new_completed),
                        }
                    )
                if changes or status_id != status[0]:
                    key = None if new_completed is None else db.instant(new_completed)
                    groups.setdefault(key, []).append(item_id)
                    events.append((item_id, changes))
            common = {"status": status[2], "status_id": status[0], "now": db.instant(now)}
            for completed_at, group in groups.items():
                await transaction.run(
                    bulk_update,
                    {**common, "completed": completed_at, "user": user_id, "ids": db.ids(group)},
                )
            if groups:
                await transaction.run(BUMP, {"c": channel})
            stamp = f"{int(time.time()):08x}"
            random = secrets.token_hex(8 * len(events))
            event_ids = [stamp + random[16 * n : 16 * n + 16] for n in range(len(events))]
            payloads = [orjson.dumps({"changes": changes}).decode() for _id, changes in events]
            shared = {"c": channel, "user": user_id, "now": db.instant(now)}
            if db.events_at_once:
                items = [item_id for item_id, _changes in events]
                arrays = {"events": event_ids, "items": items, "payloads": payloads}
                await transaction.run(UPDATED_EVENTS, {**shared, **arrays})
            else:
                await transaction.many(
                    UPDATED_EVENT,
                    [
                        {**shared, "event": event_id, "id": item_id, "payload": payload}
                        for event_id, (item_id, _changes), payload in zip(
                            event_ids, events, payloads, strict=True
                        )
                    ],
                )
        answer = [results[item_id] for item_id in ids]
        return web.Response(body=orjson.dumps(answer), content_type="application/json")

    app = web.Application()
    app.router.add_get("/odata/bugs", list_bugs)
    app.router.add_post("/odata/bugs", create_bug)
    app.router.add_post("/api/bulk/bug", bulk_edit_bugs)
    app.router.add_get("/healthz", lambda _r: _ok())
    return app


async def _ok() -> web.Response:
    return web.Response(text="ok")


def main(port: int, database_url: str) -> None:
    base = f"http://127.0.0.1:{port}"  # the app's default PUBLIC_URL, on this port
    if database_url.startswith("sqlite"):
        app = build(Sqlite(database_url.split(":///", 1)[1]), base)
    else:
        holder: dict[str, Any] = {}

        async def pool(app: web.Application) -> AsyncIterator[None]:
            dsn = database_url.replace("postgresql+asyncpg", "postgresql")
            async with raw_common.pool(dsn, max_size=20) as created:
                holder["db"].pool = created
                yield

        holder["db"] = Postgres(None)
        app = build(holder["db"], base)
        app.cleanup_ctx.append(pool)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])

"""Raw-driver ceiling of GET /api/me/tasks: the app's statements with sqlite3 or asyncpg.

The page and count statements are the app's own, compiled once at start-up from
`bot.me.queries` for the database's driver; the caller lookup and the look-ups of statuses,
projects, assignees and people are written out as the app runs them. The same JSON is encoded.
sqlite3 is called directly, on the event loop: no thread hop.
"""

import hashlib
import json
import sqlite3
import sys
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Any

import asyncpg
import orjson
from aiohttp import web
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.engine import Dialect

from bot.me.queries import my_items, my_items_count, my_items_statement
from bot.odata.query import apply, parse_query
from bot.schemas import ItemKind

STAND_IN = "u" * 24  # the user id compiled into the statements, replaced per request
CALLER = (
    "SELECT t.id, t.expires_at, t.revoked_at, t.sliding_seconds, u.id, u.source_id, u.username, "
    "u.display_name, u.email, u.source FROM auth_tokens t JOIN users u ON u.id = t.user_id "
    "WHERE t.token_hash = {0}"
)
STATUSES = "SELECT id, category, value FROM field_values WHERE id IN ({ids})"
PROJECTS = (
    "SELECT id, enable_bug, display_name, hostname, project_name, source_id FROM projects "
    "WHERE id IN ({ids})"
)
ASSIGNEES = (
    "SELECT item_id, user_id FROM item_assignees WHERE item_id IN ({ids}) "
    "ORDER BY item_id, position"
)
USERS = "SELECT id, source_id, display_name, email, username, source FROM users WHERE id IN ({ids})"


class Compiled:
    """One of the app's statements as the driver takes it, with the user id as a parameter."""

    def __init__(self, statement: Any, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        self.values = [compiled.params[name] for name in compiled.positiontup]
        self.values = [str(value) if isinstance(value, str) else value for value in self.values]

    def args(self, user_id: str) -> list[Any]:
        return [user_id if value == STAND_IN else value for value in self.values]


def statements(dialect: Dialect) -> tuple[Compiled, Compiled]:
    entity = my_items(ItemKind.TASK)
    query = parse_query({"$top": "50"}, entity, count_by_default=True)
    statement = my_items_statement(STAND_IN, ItemKind.TASK)
    page = Compiled(apply(statement, query, keyed=True), dialect)
    return page, Compiled(my_items_count(STAND_IN, ItemKind.TASK, query), dialect)


class Sqlite:
    marker = "?"

    def __init__(self, path: str) -> None:
        self.connection = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.page, self.count = statements(sqlite_dialect())

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]:
        return self.connection.execute(sql, args).fetchall()

    def placeholders(self, count: int, start: int = 1) -> str:
        return ", ".join("?" * count)


class Postgres:
    def __init__(self) -> None:
        self.pool: asyncpg.Pool | None = None
        self.page, self.count = statements(PGDialect_asyncpg())
        self.marker = "$1"

    async def rows(self, sql: str, args: Sequence[Any]) -> list[Sequence[Any]]:
        assert self.pool is not None
        return await self.pool.fetch(sql, *args)

    def placeholders(self, count: int, start: int = 1) -> str:
        return ", ".join(f"${number}" for number in range(start, start + count))


def _ts(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    value = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return value.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def build(db: Sqlite | Postgres) -> web.Application:
    caller_sql = CALLER.format(db.marker)

    async def in_list(template: str, ids: Sequence[str]) -> list[Sequence[Any]]:
        if not ids:
            return []
        return await db.rows(template.format(ids=db.placeholders(len(ids))), list(ids))

    async def my_tasks(request: web.Request) -> web.Response:
        if not request.headers.get("x-svc-entityId"):
            raise web.HTTPBadRequest
        secret = hashlib.sha256(request.cookies["graphNodeCookie"].encode()).hexdigest()
        found = await db.rows(caller_sql, [secret])
        if not found or found[0][2] is not None:
            raise web.HTTPUnauthorized
        user_id = found[0][4]
        fetched = await db.rows(db.page.sql, db.page.args(user_id))
        rows = fetched[:50]
        count = (await db.rows(db.count.sql, db.count.args(user_id)))[0][0]
        statuses = {
            row[0]: row for row in await in_list(STATUSES, list({row[8] for row in rows if row[8]}))
        }
        projects = {row[0]: row for row in await in_list(PROJECTS, list({row[11] for row in rows}))}
        assigned: dict[str, list[str]] = {}
        for item_id, assignee in await in_list(ASSIGNEES, [row[0] for row in rows]):
            assigned.setdefault(item_id, []).append(assignee)
        wanted = {user for users in assigned.values() for user in users}
        wanted |= {row[key] for row in rows for key in (25, 26) if row[key]}
        users = {row[0]: _user(row) for row in await in_list(USERS, list(wanted))}
        value = [_task(row, statuses, projects, assigned, users) for row in rows]
        body = {"@odata.context": "x", "@odata.count": count, "value": value}
        if len(fetched) > 50:
            body["@odata.nextLink"] = f"x?$skiptoken={rows[-1][34]}"
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    app = web.Application()
    app.router.add_get("/api/me/tasks", my_tasks)
    app.router.add_get("/healthz", _ok)
    return app


async def _ok(_request: web.Request) -> web.Response:
    return web.Response(text="ok")


def _user(row: Sequence[Any]) -> dict[str, Any]:
    keys = ("_id", "sourceId", "displayName", "email", "username", "source")
    return dict(zip(keys, row, strict=True))


def _task(
    row: Sequence[Any],
    statuses: dict[str, Any],
    projects: dict[str, Any],
    assigned: dict[str, list[str]],
    users: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    status = statuses.get(row[8])
    project = projects[row[11]]
    creator, editor = users.get(row[25]), users.get(row[26])
    return {
        "_id": row[0],
        "internalId": row[3],
        "name": row[4],
        "body": row[5],
        "owner": row[6],
        "status": row[7],
        "priority": row[9],
        "source": row[12],
        "sourceId": row[13],
        "startDate": _ts(row[14]),
        "dueDate": _ts(row[15]),
        "completedDate": _ts(row[16]),
        "effort": row[17],
        "phase": row[18],
        "phaseName": row[19],
        "bucket": row[20] if isinstance(row[20], list) else json.loads(row[20]),
        "bucketName": row[21],
        "attachments": [],
        "createdAt": _ts(row[27]),
        "updatedAt": _ts(row[28]),
        "statusId": {"_id": row[8], "category": status[1] if status else None},
        "statusValue": status[2] if status else None,
        "sync": {"status": row[23], "at": _ts(row[24])},
        "projectId": {
            "enableBug": bool(project[1]),
            "_id": project[0],
            "displayName": project[2],
            "hostname": project[3],
            "projectName": project[4],
            "sourceId": project[5],
        },
        "assignedTo": [users[user] for user in assigned.get(row[0], [])],
        "channelId": row[29],
        "teamId": row[30],
        "groupId": row[31],
        "entityId": row[22],
        "createdBy": creator
        and {
            "source": creator["source"],
            "email": creator["email"] or creator["username"],
            "name": creator["displayName"],
            "sourceId": creator["sourceId"],
        },
        "updatedBy": editor
        and {
            "displayName": editor["displayName"],
            "url": "",
            "_links": {"avatar": {"href": ""}},
            "id": editor["sourceId"],
            "uniqueName": editor["username"],
            "imageUrl": "",
            "descriptor": "",
        },
        "teamName": row[32],
        "channelName": row[33],
    }


def main(port: int, database_url: str) -> None:
    if database_url.startswith("sqlite"):
        app = build(Sqlite(database_url.split(":///", 1)[1]))
    else:
        db = Postgres()

        async def pool(_app: web.Application) -> AsyncIterator[None]:
            dsn = database_url.replace("postgresql+asyncpg", "postgresql")
            async with asyncpg.create_pool(dsn, min_size=2, max_size=10) as created:
                db.pool = created
                yield

        app = build(db)
        app.cleanup_ctx.append(pool)
    web.run_app(app, host="127.0.0.1", port=port, print=None)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
